#!/usr/bin/env -S node --import tsx
// CommonJS like every file in bin/ (bin/package.json); oclif is given the package's root, not bin/.
const path = require('node:path');
const { execute } = require('@oclif/core');

void execute({ development: true, dir: path.join(__dirname, '..') });
