import { ArgsType, Field, Int, ObjectType, type ClassType } from 'type-graphql';
import { ValidationError } from '../errors.js';

export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;

/** `limit` and `offset` of a list; list argument classes extend it so that the arguments stay flat. */
@ArgsType()
export class PageArgs {
  @Field(() => Int, { nullable: true, description: `Page size (default ${DEFAULT_PAGE_SIZE}, at most ${MAX_PAGE_SIZE}).` })
  limit?: number;

  @Field(() => Int, { nullable: true, description: 'Number of records to skip (default 0).' })
  offset?: number;
}

export interface Page<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

/** The window a list reads; a larger limit is cut to the maximum, a non-positive one is a 400. */
export function pageWindow(args: PageArgs): { limit: number; offset: number } {
  const limit = args.limit ?? DEFAULT_PAGE_SIZE;
  const offset = args.offset ?? 0;
  if (limit < 1) throw new ValidationError('Ensure this value is greater than or equal to 1.', 'limit', 'min_value');
  if (offset < 0) throw new ValidationError('Ensure this value is greater than or equal to 0.', 'offset', 'min_value');
  return { limit: Math.min(limit, MAX_PAGE_SIZE), offset };
}

/**
 * A page in the shape of the API's lists. `next` and `previous` are relative references
 * (`?limit=100&offset=200`); the REST layer turns them into absolute URLs of the request's path.
 * As in DRF, `previous` drops `offset` when the previous page starts at 0.
 */
export function toPage<T>(results: T[], count: number, window: { limit: number; offset: number }): Page<T> {
  const { limit, offset } = window;
  const next = offset + limit < count ? `?limit=${limit}&offset=${offset + limit}` : null;
  let previous: string | null = null;
  if (offset > 0) previous = offset - limit > 0 ? `?limit=${limit}&offset=${offset - limit}` : `?limit=${limit}`;
  return { count, next, previous, results };
}

/** `Paginated(Item)`: the list type `{count, next, previous, results}` for one record type. */
export function Paginated<T extends object>(Item: ClassType<T>) {
  @ObjectType()
  abstract class PaginatedList implements Page<T> {
    @Field(() => Int, { description: 'Number of records in the whole list.' })
    count!: number;

    @Field(() => String, { nullable: true, description: 'Relative reference of the next page, null on the last.' })
    next!: string | null;

    @Field(() => String, { nullable: true, description: 'Relative reference of the previous page, null on the first.' })
    previous!: string | null;

    @Field(() => [Item])
    results!: T[];
  }
  return PaginatedList;
}
