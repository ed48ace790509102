import { FLOOR_BLOCK, type SequenceFloors } from './sequence-floors.js';

/** A topic's numbering in this process: the last sequence issued, and the most it may issue before a floor is written. */
interface Numbering {
  last: number;
  ceiling: number;
}

/**
 * The sequence numbers of the topics whose events this process numbers (the in-process pub/sub,
 * or a cluster's primary for its workers), each event delivered as its JSON envelope the moment
 * it is numbered, so that deliveries keep the order of the numbers. With `floors`, a platform
 * started again numbers above what it issued before (the floors are the Redis pub/sub's): a
 * topic's first event here takes a block above its floor, and no number is issued past the block
 * before the next is written. Without them, each topic starts at 1 in each process.
 */
export class TopicSequences {
  private readonly numberings = new Map<string, Numbering>();
  /** Per topic, the events waiting behind a floor being written, in order. */
  private readonly waiting = new Map<string, Promise<unknown>>();

  constructor(private readonly floors?: SequenceFloors | Promise<SequenceFloors>) {}

  /** Numbers the event and hands its envelope to `deliver`; fails (nothing delivered) when its floor cannot be written. */
  publish(topic: string, payloadJson: string, deliver: (message: string) => void): Promise<number> {
    const numbered = () => {
      const sequence = this.next(topic);
      if (sequence !== undefined) deliver(`{"sequence":${sequence},"payload":${payloadJson}}`);
      return sequence;
    };
    const before = this.waiting.get(topic);
    const sequence = before ? undefined : numbered();
    if (sequence !== undefined) return Promise.resolve(sequence);
    const published = (before ?? Promise.resolve()).then(async () => {
      await this.makeRoom(topic);
      return numbered()!;
    });
    const settled = published.catch(() => undefined);
    this.waiting.set(topic, settled);
    void settled.then(() => this.waiting.get(topic) === settled && this.waiting.delete(topic));
    return published;
  }

  /** The next number of the topic, or undefined when a floor must be written first. */
  private next(topic: string): number | undefined {
    let numbering = this.numberings.get(topic);
    if (!numbering && !this.floors) this.numberings.set(topic, (numbering = { last: 0, ceiling: Infinity }));
    if (!numbering || numbering.last + 1 > numbering.ceiling) return undefined;
    numbering.last += 1;
    return numbering.last;
  }

  private async makeRoom(topic: string): Promise<void> {
    const floors = await this.floors!;
    const numbering = this.numberings.get(topic);
    if (!numbering) {
      const { from, floor } = await floors.reserve(topic);
      this.numberings.set(topic, { last: from, ceiling: floor });
    } else if (numbering.last + 1 > numbering.ceiling) {
      numbering.ceiling = await floors.raise(topic, Math.ceil((numbering.last + 1) / FLOOR_BLOCK) * FLOOR_BLOCK);
    }
  }
}
