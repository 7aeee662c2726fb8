import { describe, expect, it } from 'vitest';
import { Lifecycle, type Component } from './lifecycle.js';

function recorder() {
  const events: string[] = [];
  const component = (name: string, opts: { failStart?: boolean; failStop?: boolean } = {}): Component => ({
    name,
    async start() {
      events.push(`start ${name}`);
      if (opts.failStart) throw new Error(`${name} would not start`);
    },
    stop() {
      events.push(`stop ${name}`);
      if (opts.failStop) throw new Error(`${name} would not stop`);
    },
  });
  return { events, component };
}

describe('the server lifecycle', () => {
  it('starts components in order and stops them in reverse, across several start calls', async () => {
    const { events, component } = recorder();
    const lifecycle = new Lifecycle();
    await lifecycle.start([component('store'), component('caches')]);
    await lifecycle.start([component('listener'), component('controller')]);
    await lifecycle.stop();
    expect(events).toEqual(['start store', 'start caches', 'start listener', 'start controller', 'stop controller', 'stop listener', 'stop caches', 'stop store']);
  });

  it('stops what started when a start fails, and rethrows', async () => {
    const { events, component } = recorder();
    const lifecycle = new Lifecycle();
    await lifecycle.start([component('store')]);
    await expect(lifecycle.start([component('listener'), component('broken', { failStart: true }), component('never')])).rejects.toThrow('broken would not start');
    expect(events).toEqual(['start store', 'start listener', 'start broken', 'stop listener', 'stop store']);
    await expect(lifecycle.start([component('late')])).rejects.toThrow('stopping');
  });

  it('goes on stopping past a failing stop, tells of it, and stops once', async () => {
    const { events, component } = recorder();
    const failures: string[] = [];
    const lifecycle = new Lifecycle((name, err) => failures.push(`${name}: ${(err as Error).message}`));
    await lifecycle.start([component('store'), component('controller', { failStop: true })]);
    await Promise.all([lifecycle.stop(), lifecycle.stop()]);
    expect(events).toEqual(['start store', 'start controller', 'stop controller', 'stop store']);
    expect(failures).toEqual(['controller: controller would not stop']);
  });

  it('opens a value and closes it at shutdown', async () => {
    const closed: string[] = [];
    const lifecycle = new Lifecycle();
    const handle = await lifecycle.open('lock', () => 'held', (value) => void closed.push(value));
    expect(handle).toBe('held');
    await lifecycle.stop();
    expect(closed).toEqual(['held']);
  });
});
