import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Deadline } from './connection-deadlines.js';

const HEADER = 32_000;
const IDLE = 90_000;

describe('connection deadline', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const connection = (idle = IDLE, first = HEADER) => {
    const expired = vi.fn();
    return { deadline: new Deadline(idle, expired, first), expired };
  };

  it('closes a connection that sends no request within the header timeout', () => {
    const { expired } = connection();
    vi.advanceTimersByTime(HEADER - 100);
    expect(expired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(200);
    expect(expired).toHaveBeenCalledTimes(1);
  });

  it('never closes a connection while a request is in progress, and counts idle time from the last one', () => {
    const { deadline, expired } = connection();
    vi.advanceTimersByTime(10_000);
    deadline.started();
    vi.advanceTimersByTime(200_000); // past both deadlines
    expect(expired).not.toHaveBeenCalled();
    deadline.finished();
    vi.advanceTimersByTime(IDLE - 100);
    expect(expired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(200);
    expect(expired).toHaveBeenCalledTimes(1);
  });

  it('moves the idle deadline with every request: a steady client is never cut off', () => {
    const { deadline, expired } = connection();
    for (let i = 0; i < 50; i++) {
      deadline.started();
      vi.advanceTimersByTime(1_000);
      deadline.finished();
      vi.advanceTimersByTime(IDLE - 5_000);
    }
    expect(expired).not.toHaveBeenCalled();
    vi.advanceTimersByTime(5_100);
    expect(expired).toHaveBeenCalledTimes(1);
  });

  it('waits for the last of overlapping requests (HTTP/2 streams)', () => {
    const { deadline, expired } = connection();
    deadline.started();
    deadline.started();
    vi.advanceTimersByTime(1_000);
    deadline.finished();
    vi.advanceTimersByTime(IDLE + 1_000);
    expect(expired).not.toHaveBeenCalled();
    deadline.finished();
    vi.advanceTimersByTime(IDLE + 100);
    expect(expired).toHaveBeenCalledTimes(1);
  });

  it('applies a shorter idle deadline than the pending one at once', () => {
    const { deadline, expired } = connection(1_000, HEADER);
    deadline.started();
    deadline.finished();
    vi.advanceTimersByTime(1_100);
    expect(expired).toHaveBeenCalledTimes(1);
  });

  it('does nothing once its connection closed', () => {
    const { deadline, expired } = connection();
    deadline.stop();
    vi.advanceTimersByTime(10 * IDLE);
    expect(expired).not.toHaveBeenCalled();
  });
});
