#!/usr/bin/env node
// kubectl plugin shim: `kubectl create workspace …` runs `kcpt ws create …`.
process.argv.splice(2, 0, 'ws', 'create');
require('./run.js');
