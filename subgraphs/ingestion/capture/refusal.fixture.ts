import { AppError } from '../../shared/errors.js';

/** The typed error a call fails with, flattened for matching (status, message, extensions); an error when it succeeds. */
export function refusal(call: () => unknown): { status: number; message: string } & Record<string, unknown> {
  try {
    call();
  } catch (error) {
    if (error instanceof AppError) return { status: error.status, message: error.message, ...error.extensions };
    throw error;
  }
  throw new Error('the call was accepted');
}
