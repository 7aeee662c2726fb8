#!/usr/bin/env node
// kubectl plugin shim: `kubectl ws …` runs `kcpt ws …` (kubectl passes every argument through; the same fast path
// and output as kcpt). `kcpt ws` maps a shell-expanded ~ ($HOME) back to ~ itself.
process.argv.splice(2, 0, 'ws');
require('./run.js');
