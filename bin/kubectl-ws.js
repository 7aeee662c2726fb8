#!/usr/bin/env node
// kubectl plugin shim: `kubectl ws …` runs `kcpt ws …`.
import { execute } from '@oclif/core';

await execute({ dir: import.meta.url, args: ['ws', ...process.argv.slice(2)] });
