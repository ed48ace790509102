import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../../shared/auth/actor.js';
import { NotFoundError, ValidationError } from '../../shared/errors.js';
import { EnvironmentService } from '../environments/environment.service.js';
import type { EnvironmentInProjectArgs } from '../environments/environment.inputs.js';
import type { DefaultEvaluationTags, EvaluationTagAdded, EvaluationTagArgs } from './evaluation-tag.record.js';
import { EvaluationTag } from './evaluation-tag.entity.js';

export const MAX_DEFAULT_TAGS = 10;
const MAX_TAG_LENGTH = 255;

export class EvaluationTagService {
  constructor(private readonly em: EntityManager) {}

  async list(actor: Actor, args: EnvironmentInProjectArgs): Promise<DefaultEvaluationTags> {
    const environment = await new EnvironmentService(this.em).entity(actor, args);
    const tags = await this.em.find(EvaluationTag, { environment }, { orderBy: { id: 'asc' } });
    return {
      default_evaluation_tags: tags.map(({ id, name }) => ({ id, name })),
      enabled: environment.settings.default_evaluation_contexts_enabled === true,
    };
  }

  /** Links a tag (trimmed, lower-cased); at most ten, the count checked under the environment's lock. */
  async add(actor: Actor, args: EvaluationTagArgs): Promise<EvaluationTagAdded> {
    const name = tagName(args.tag_name);
    return this.em.transactional(async (em) => {
      const environment = await new EnvironmentService(em).entity(actor, args, true);
      const existing = await em.findOne(EvaluationTag, { environment, name });
      if (existing) return { id: existing.id, name, created: false };
      if ((await em.count(EvaluationTag, { environment })) >= MAX_DEFAULT_TAGS) {
        throw new ValidationError(`Maximum of ${MAX_DEFAULT_TAGS} default evaluation tags allowed`, 'tag_name', 'max_tags');
      }
      const tag = Object.assign(new EvaluationTag(), { environment, name });
      await em.persistAndFlush(tag);
      return { id: tag.id, name, created: true };
    });
  }

  async remove(actor: Actor, args: EvaluationTagArgs): Promise<void> {
    const environment = await new EnvironmentService(this.em).entity(actor, args);
    const removed = await this.em.nativeDelete(EvaluationTag, { environment, name: tagName(args.tag_name) });
    if (removed === 0) throw new NotFoundError('Tag not found');
  }
}

function tagName(value: string): string {
  const name = value.trim().toLowerCase();
  if (!name) throw new ValidationError('This field may not be blank.', 'tag_name', 'blank');
  if (name.length > MAX_TAG_LENGTH) throw new ValidationError(`Ensure this field has no more than ${MAX_TAG_LENGTH} characters.`, 'tag_name', 'max_length');
  return name;
}
