import { describe, expect, it } from 'vitest';
import { validateSettings } from './settings.js';
import type { SettingName } from './setting.catalog.js';

/** The first refusal of `input`, as the REST body gives it. */
function refusal(input: Record<string, unknown>): { code: unknown; detail: string; attr: unknown } {
  try {
    validateSettings(input, Object.keys(input) as SettingName[]);
  } catch (error) {
    const { extensions, message } = error as { extensions: { code: unknown; attr: unknown }; message: string };
    return { code: extensions.code, detail: message, attr: extensions.attr };
  }
  throw new Error(`${JSON.stringify(input)} was accepted`);
}

describe('setting errors, in the words of DRF fields', () => {
  it.each([
    [{ session_recording_minimum_duration_milliseconds: 50_000 }, 'max_value', 'Ensure this value is less than or equal to 30000.', 'session_recording_minimum_duration_milliseconds'],
    [{ session_recording_minimum_duration_milliseconds: -1 }, 'min_value', 'Ensure this value is greater than or equal to 0.', 'session_recording_minimum_duration_milliseconds'],
    [{ primary_dashboard: 0 }, 'min_value', 'Ensure this value is greater than or equal to 1.', 'primary_dashboard'],
    [{ primary_dashboard: 2.5 }, 'invalid_input', 'A valid integer is required.', 'primary_dashboard'],
    [{ product_description: 'x'.repeat(1001) }, 'max_length', 'Ensure this field has no more than 1000 characters.', 'product_description'],
    [{ app_urls: ['https://a.example', 'x'.repeat(201)] }, 'max_length', 'Ensure this field has no more than 200 characters.', 'app_urls__1'],
    [{ app_urls: 'https://a.example' }, 'not_a_list', 'Expected a list of items but got type "str".', 'app_urls'],
    [{ timezone: 'Mars/Base' }, 'invalid_choice', '"Mars/Base" is not a valid choice.', 'timezone'],
    [{ base_currency: 'usd1' }, 'invalid_choice', '"usd1" is not a valid choice.', 'base_currency'],
    [{ slack_incoming_webhook: 'not a url' }, 'invalid_input', 'Enter a valid URL.', 'slack_incoming_webhook'],
    [{ anonymize_ips: 'x' }, 'invalid_input', 'Must be a valid boolean.', 'anonymize_ips'],
    [{ anonymize_ips: null }, 'null', 'This field may not be null.', 'anonymize_ips'],
  ])('refuses %j with %s', (input, code, detail, attr) => {
    expect(refusal(input)).toEqual({ code, detail, attr });
  });
});
