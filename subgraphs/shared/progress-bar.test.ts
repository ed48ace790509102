import { describe, expect, it } from 'vitest';
import { duration, ProgressBar } from './progress-bar.js';

/** A standard error that keeps what is written, a terminal or not. */
function output(isTTY: boolean): NodeJS.WriteStream & { written: string[] } {
  const written: string[] = [];
  return { isTTY, written, write: (text: string) => written.push(text) > 0 } as unknown as NodeJS.WriteStream & { written: string[] };
}

describe('ProgressBar', () => {
  it('writes a line at once off a terminal, then none for a few seconds unless forced', () => {
    const out = output(false);
    const bar = new ProgressBar(out);
    bar.draw(() => ({ share: 0.25, text: '1 of 4' }));
    bar.draw(() => ({ share: 0.5, text: '2 of 4' }));
    bar.draw(() => ({ share: 1, text: '4 of 4' }), true);
    bar.end();
    expect(out.written).toEqual(['[######..................]  25% · 1 of 4\n', '[########################] 100% · 4 of 4\n']);
  });

  it('redraws in place on a terminal and ends the line once drawn', () => {
    const out = output(true);
    const bar = new ProgressBar(out);
    bar.end();
    bar.draw(() => ({ share: 2, text: 'past the count' }));
    bar.end();
    expect(out.written).toEqual(['\r[########################] 200% · past the count\x1b[K', '\n']);
  });

  it('counts a rate from what a resumed run had done', () => {
    const bar = new ProgressBar(output(false));
    expect(bar.rate(150, 50, bar.started + 2000)).toBe(50);
  });
});

describe('duration', () => {
  it.each([
    [12.1, '13 s'],
    [185, '3 min 05 s'],
    [3720, '1 h 02 min'],
  ])('%d s is %s', (seconds, text) => expect(duration(seconds)).toBe(text));
});
