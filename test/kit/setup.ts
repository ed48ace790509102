import 'reflect-metadata';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOOPBACK_DESTINATIONS } from './process.js';
import { TEST_SECRET_KEY } from './secret.js';

// Code that reads the process configuration outside a started stack (seed builders) seals
// secrets with the run's key, and nothing writes a secret-key file into the working tree.
process.env.SECRET_KEY ??= TEST_SECRET_KEY;
process.env.DATA_DIR ??= mkdtempSync(join(tmpdir(), 'analytics-test-data-'));
// Destinations of suites without a stack (s3rver, the machine's PostgreSQL) listen on loopback.
process.env.DESTINATION_ALLOWED_HOSTS ??= LOOPBACK_DESTINATIONS;
