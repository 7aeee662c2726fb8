#!/usr/bin/env node
// kubectl plugin shim: `kubectl kcp …` runs `kcpt …` (kubectl kcp ws, kubectl kcp bind, …).
import { execute } from '@oclif/core';

await execute({ dir: import.meta.url, args: process.argv.slice(2) });
