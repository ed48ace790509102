import { afterEach, describe, expect, it } from 'vitest';
import { WorkerBudgetError, WorkerFailedError, WorkerPool } from './worker-pool.js';

// A handler that answers its input doubled, spins forever on 'spin', and throws on 'throw'.
const SETUP = `() => (input) => {
  if (input === 'spin') for (;;);
  if (input === 'throw') throw new Error('refused');
  return input * 2;
}`;

const pools: WorkerPool<unknown, unknown>[] = [];

function pool(options: Partial<ConstructorParameters<typeof WorkerPool>[0]> = {}): WorkerPool<unknown, unknown> {
  const created = new WorkerPool<unknown, unknown>({ setup: SETUP, size: 2, budgetMs: 1_000, ...options });
  pools.push(created);
  return created;
}

afterEach(async () => {
  await Promise.all(pools.splice(0).map((created) => created.close()));
});

describe(WorkerPool.name, () => {
  describe('run', () => {
    it('answers what the handler answers, off the event loop', async () => {
      await expect(pool().run(21)).resolves.toBe(42);
    });

    it('rejects with the handler’s error and keeps the worker', async () => {
      const workers = pool({ size: 1 });
      await expect(workers.run('throw')).rejects.toThrow('refused');
      await expect(workers.run(1)).resolves.toBe(2);
    });

    it('terminates a task past the budget, and the next task runs on a fresh worker', async () => {
      const workers = pool({ size: 1, budgetMs: 200 });
      const stuck = workers.run('spin').catch((error: unknown) => error);
      const next = workers.run(2);
      expect(await stuck).toBeInstanceOf(WorkerBudgetError);
      await expect(next).resolves.toBe(4);
    });

    it('runs other tasks on another worker while one is stuck', async () => {
      const workers = pool({ size: 2, budgetMs: 5_000 });
      const stuck = workers.run('spin').catch((error: unknown) => error);
      await expect(workers.run(3)).resolves.toBe(6);
      await workers.close();
      expect(await stuck).toBeInstanceOf(WorkerFailedError);
    });

    it('refuses waiting work when the setup fails', async () => {
      await expect(pool({ setup: '() => { throw new Error("no setup"); }' }).run(1)).rejects.toBeInstanceOf(WorkerFailedError);
    });
  });
});
