/**
 * One SECRET_KEY for every process of a test run, so that they can verify each other's headers.
 * A module of its own: the per-file setup reads it without loading the platform (seconds a file).
 */
export const TEST_SECRET_KEY = 'test-secret-key-0123456789abcdef-0123456789';
