import { describe, expect, it } from 'vitest';
import { SecretBox, secretBox } from '../shared/secrets.js';
import type { ProjectListRow } from './projects/project-list.repository.js';
import { projectBasicRecord } from './records.js';

const row = (sealed: string): ProjectListRow => ({ id: 7, uuid: 'uuid', organization_id: 'org', name: 'Shop', api_token_sealed: sealed, ingested_event: false, settings: {} });

describe(projectBasicRecord.name, () => {
  it('opens the token as the record is made, a plain field like the others', () => {
    const record = projectBasicRecord(row(secretBox().seal('phc_list')));
    expect(Object.getOwnPropertyDescriptor(record, 'api_token')).toMatchObject({ value: 'phc_list', enumerable: true });
    expect(record).toMatchObject({ id: 7, name: 'Shop', timezone: 'UTC' });
  });

  it('fails only a reader of a token that does not open (sealed under another SECRET_KEY)', () => {
    const record = projectBasicRecord(row(new SecretBox('another secret key, long enough to be one').seal('phc_other')));
    expect(record).toMatchObject({ id: 7, name: 'Shop' });
    expect(Object.keys(record)).toContain('api_token');
    expect(() => record.api_token).toThrow();
  });
});
