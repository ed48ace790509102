import { Worker } from 'node:worker_threads';

/** A task that ran past the pool's budget: its worker was terminated and will be replaced. */
export class WorkerBudgetError extends Error {
  constructor(readonly budgetMs: number) {
    super(`The task ran longer than ${budgetMs} ms.`);
  }
}

/** A worker that failed outside its handler (its setup threw, it exited mid-task). */
export class WorkerFailedError extends Error {}

export interface WorkerPoolOptions {
  /**
   * JavaScript source of an expression: an (async) function that takes `data` and answers the
   * handler, `(input) => output`. It runs as a CommonJS script (`require` works) in every worker,
   * once, before the worker takes a task; the handler's answer must survive structured cloning.
   */
  setup: string;
  /** What `setup` is called with (resolved paths, settings): structured-cloned into each worker. */
  data?: unknown;
  /** Most workers alive at once; they start when work waits and none is free. */
  size: number;
  /** Longest a task may run once a worker took it, in milliseconds. */
  budgetMs: number;
}

interface Task {
  input: unknown;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  task: Task | null;
  timer: NodeJS.Timeout | null;
}

/** Only a handle to keep the process alive: it never needs to fire. */
const KEEP_ALIVE_MS = 2 ** 30;

type Answer = { ready: true } | { ok: true; value: unknown } | { ok: false; message: string };

// Evaluated rather than loaded from a file: the same string runs from the TypeScript sources
// (vitest, no .js beside them) and from tsc's output. The setup answer is awaited once.
const HARNESS = `
const { parentPort, workerData } = require('node:worker_threads');
Promise.resolve((${'%SETUP%'})(workerData)).then((handle) => {
  parentPort.on('message', (input) => {
    Promise.resolve().then(() => handle(input)).then(
      (value) => parentPort.postMessage({ ok: true, value }),
      (error) => parentPort.postMessage({ ok: false, message: String((error && error.message) || error) }),
    );
  });
  parentPort.postMessage({ ready: true });
});
`;

/**
 * A few worker threads that run CPU-bound work off the event loop, one task per worker at a time,
 * in the order asked. A task past the budget rejects with WorkerBudgetError and its worker is
 * terminated (it may be stuck for good), so that the next task gets a fresh one. Workers never keep
 * the process alive on their own.
 */
export class WorkerPool<In, Out> {
  private readonly slots = new Set<Slot>();
  private readonly waiting: Task[] = [];
  private readonly source: string;
  private keepAlive: NodeJS.Timeout | null = null;

  constructor(private readonly options: WorkerPoolOptions) {
    this.source = HARNESS.replace('%SETUP%', options.setup);
  }

  /** Runs one task; rejects with the handler's error message, WorkerBudgetError or WorkerFailedError. */
  run(input: In): Promise<Out> {
    return new Promise<Out>((resolve, reject) => {
      this.waiting.push({ input, resolve: resolve as (value: unknown) => void, reject });
      this.dispatch();
    });
  }

  /** Terminates every worker; waiting tasks are refused. */
  async close(): Promise<void> {
    for (const task of this.waiting.splice(0)) task.reject(new WorkerFailedError('The worker pool was closed.'));
    await Promise.all([...this.slots].map((slot) => this.retire(slot, new WorkerFailedError('The worker pool was closed.'))));
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (this.waiting.length > 0 && slot.ready && !slot.task) this.start(slot, this.waiting.shift()!);
    }
    const starting = [...this.slots].filter((slot) => !slot.ready).length;
    if (this.waiting.length > starting && this.slots.size < this.options.size) this.spawn();
    this.hold();
  }

  /**
   * The process stays alive while work waits or runs, and never for an idle pool: a timer holds it,
   * the workers never do.
   */
  private hold(): void {
    const busy = this.waiting.length > 0 || [...this.slots].some((slot) => slot.task);
    if (busy) this.keepAlive ??= setInterval(() => undefined, KEEP_ALIVE_MS);
    else if (this.keepAlive) {
      clearInterval(this.keepAlive);
      this.keepAlive = null;
    }
  }

  private start(slot: Slot, task: Task): void {
    slot.task = task;
    slot.timer = setTimeout(() => void this.retire(slot, new WorkerBudgetError(this.options.budgetMs)), this.options.budgetMs);
    slot.worker.postMessage(task.input);
  }

  private spawn(): void {
    const worker = new Worker(this.source, { eval: true, workerData: this.options.data });
    const slot: Slot = { worker, ready: false, task: null, timer: null };
    this.slots.add(slot);
    worker.on('message', (answer: Answer) => this.settle(slot, answer));
    worker.on('error', (error) => void this.retire(slot, new WorkerFailedError(error.message)));
    worker.on('exit', (code) => void this.retire(slot, new WorkerFailedError(`The worker exited with code ${code}.`)));
    // After the listeners: a 'message' listener references the worker's port again.
    worker.unref();
  }

  private settle(slot: Slot, answer: Answer): void {
    if ('ready' in answer) slot.ready = true;
    else if (slot.task) {
      const task = slot.task;
      this.release(slot);
      if (answer.ok) task.resolve(answer.value);
      else task.reject(new Error(answer.message));
    }
    this.dispatch();
  }

  private release(slot: Slot): void {
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
    slot.task = null;
  }

  /** Drops a worker (stuck, failed or closing), fails its task, and lets waiting work start another. */
  private async retire(slot: Slot, reason: Error): Promise<void> {
    if (!this.slots.delete(slot)) return;
    const task = slot.task;
    this.release(slot);
    task?.reject(reason);
    // A setup that keeps failing must not spin: waiting work fails with it rather than respawning forever.
    if (!slot.ready && !task) for (const waiting of this.waiting.splice(0)) waiting.reject(reason);
    this.dispatch();
    await slot.worker.terminate();
  }
}
