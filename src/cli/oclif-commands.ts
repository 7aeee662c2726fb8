/**
 * oclif's command table (package.json `oclif.commands`, the explicit strategy): one class per command spec, so
 * adding a command is its spec and nothing more. `start` and `front-proxy` run servers: they stay out of the fast
 * path's bundle (registry.ts), and bin/run.js gives `start` a fast path of its own (start/fast-path.ts).
 */
import type { Command } from '@oclif/core';
import { commandClass } from './common/oclif-command.js';
import { frontProxySpec } from './front-proxy/spec.js';
import { commandSpecs } from './registry.js';
import { startSpec } from './start/spec.js';

const specs = [...commandSpecs, startSpec, frontProxySpec];

export const COMMANDS: Record<string, typeof Command> = Object.fromEntries(specs.map((spec) => [spec.id.split(' ').join(':'), commandClass(spec)]));
