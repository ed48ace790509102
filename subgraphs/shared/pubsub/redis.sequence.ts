import { createHash } from 'node:crypto';
import type { createClient } from 'redis';
import { FLOOR_BLOCK, type SequenceFloors } from './sequence-floors.js';

type RedisClient = ReturnType<typeof createClient>;

/** Replies of the publish script that are no sequence: the counter is missing, or at its ceiling. */
const MISSING = -1;
const AT_CEILING = -2;
/** A counter untouched this long goes (a topic's next event seeds a new one from the floor). */
const COUNTER_TTL_SECONDS = 30 * 24 * 3600;

/**
 * Numbers the event and publishes it in one step, so that two publishers' events reach subscribers
 * in the order of their numbers. Guarded (ARGV[2]), it issues nothing above the ceiling (the floor
 * known to be in PostgreSQL) and nothing from a counter Redis no longer holds.
 */
const PUBLISH = script(`
local guarded = ARGV[2] == '1'
local current = redis.call('GET', KEYS[1])
if not current and guarded then return ${MISSING} end
if guarded and tonumber(current) + 1 > tonumber(redis.call('GET', KEYS[2]) or '0') then return ${AT_CEILING} end
local sequence = redis.call('INCR', KEYS[1])
redis.call('EXPIRE', KEYS[1], ${COUNTER_TTL_SECONDS})
redis.call('PUBLISH', KEYS[3], '{"sequence":' .. sequence .. ',"payload":' .. ARGV[1] .. '}')
return sequence`);

/** Seeds a missing counter (ARGV[1], unless another publisher did first) and raises the ceiling to ARGV[2]. */
const SEED = script(`
if ARGV[1] ~= '' then redis.call('SET', KEYS[1], ARGV[1], 'NX', 'EX', ${COUNTER_TTL_SECONDS}) end
if tonumber(ARGV[2]) > tonumber(redis.call('GET', KEYS[2]) or '0') then redis.call('SET', KEYS[2], ARGV[2], 'EX', ${COUNTER_TTL_SECONDS}) end
return 1`);

/**
 * Publishes numbered events on Redis. With `floors`, a topic's sequence never goes back, across
 * restarts of Redis too: every sequence issued is at most its topic's floor in PostgreSQL (the
 * script's ceiling, raised a block at a time), and a counter Redis lost is seeded above the floor.
 * The counters are named by the Redis server's run id, so that a Redis restarted from an old
 * snapshot (a counter behind what it issued since) starts new ones rather than reuse old numbers.
 */
export class SequencedPublisher {
  private run: Promise<string> | undefined;

  constructor(
    private readonly client: RedisClient,
    private readonly prefix: string,
    private readonly floors?: SequenceFloors,
  ) {
    client.on('ready', () => (this.run = undefined));
  }

  async publish(topic: string, payloadJson: string): Promise<number> {
    const guarded = this.floors ? '1' : '0';
    for (let attempt = 0; attempt < 4; attempt++) {
      const keys = await this.keys(topic);
      const reply = Number(await run(this.client, PUBLISH, keys, [payloadJson, guarded]));
      if (reply > 0) return reply;
      if (reply === MISSING) await this.seed(topic, keys);
      else if (reply === AT_CEILING) await this.raise(topic, keys);
    }
    throw new Error(`the sequence of topic ${topic} could not be advanced`);
  }

  /** After Redis lost the counter: a block above everything issued before, from PostgreSQL. */
  private async seed(topic: string, keys: string[]): Promise<void> {
    const { from, floor } = await this.floors!.reserve(topic);
    await run(this.client, SEED, keys, [String(from), String(floor)]);
  }

  /** The counter enters a new block: its end is written to PostgreSQL before any number of it is issued. */
  private async raise(topic: string, keys: string[]): Promise<void> {
    const current = await this.client.get(keys[0]!);
    if (current === null) return;
    const blockEnd = Math.ceil((Number(current) + 1) / FLOOR_BLOCK) * FLOOR_BLOCK;
    const floor = await this.floors!.raise(topic, blockEnd);
    await run(this.client, SEED, keys, ['', String(floor)]);
  }

  /** The counter, its ceiling and the channel of `topic`, under the run id of the server now connected. */
  private async keys(topic: string): Promise<string[]> {
    this.run ??= this.client.info('server').then((info) => /run_id:(\w+)/.exec(info)?.[1] ?? 'unknown');
    const run = await this.run.catch((error: unknown) => {
      this.run = undefined;
      throw error;
    });
    return [`${this.prefix}seq:${run}:${topic}`, `${this.prefix}seq-ceiling:${run}:${topic}`, this.prefix + topic];
  }
}

interface Script {
  source: string;
  sha: string;
}

function script(source: string): Script {
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

/** Runs a script by its SHA, sending it whole when Redis does not know it (as after a restart). */
async function run(client: RedisClient, { source, sha }: Script, keys: string[], args: string[]): Promise<unknown> {
  try {
    return await client.evalSha(sha, { keys, arguments: args });
  } catch (error) {
    if (!(error as Error).message?.startsWith('NOSCRIPT')) throw error;
    return client.eval(source, { keys, arguments: args });
  }
}
