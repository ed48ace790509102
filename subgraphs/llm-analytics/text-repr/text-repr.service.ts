import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../../shared/auth/actor.js';
import { ValidationError } from '../../shared/errors.js';
import { projectsFacade } from '../../projects/facade.js';
import { renderTextRepr, TextReprInputError, type TextReprMetadata } from './text-repr.js';

/** The text form of an event or trace, for a caller who reaches the environment; bad input is a 400 on its field. */
export async function textRepr(
  em: EntityManager,
  actor: Actor,
  args: { project_id: number; event_type?: string | null; data?: unknown; options?: unknown },
): Promise<{ text: string; metadata: TextReprMetadata }> {
  await projectsFacade.reachEnvironment(em, actor, args.project_id);
  try {
    // Absent or null fields are the renderer's to refuse, as DRF does: `required`, or `null`.
    return renderTextRepr(args.event_type, args.data, args.options);
  } catch (error) {
    if (error instanceof TextReprInputError) throw new ValidationError(error.message, error.attr, error.code);
    throw error;
  }
}
