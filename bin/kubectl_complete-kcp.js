#!/usr/bin/env node
// kubectl's plugin completion for `kubectl kcp <TAB>`: kcp's words (workspace/ws, bind apiexport, crd snapshot) mapped
// onto kcpt's commands, then kcpt's completion.
const words = process.argv.slice(2);
const [first, ...rest] = words;
if (words.length <= 1) {
  const all = ['bind', 'crd', 'workspace', 'ws'].filter((w) => w.startsWith(first ?? ''));
  process.stdout.write(`${all.join('\n')}${all.length ? '\n' : ''}:4\n`);
  process.exit(0);
}
const mapped = first === 'ws' || first === 'workspace' || first === 'workspaces'
  ? ['ws', ...rest]
  : first === 'bind' && rest[0] === 'apiexport' ? ['bind', ...rest.slice(1)]
  : first === 'crd' && rest[0] === 'snapshot' ? ['export', 'snapshot', ...rest.slice(1)]
  : undefined;
if (!mapped) {
  process.stdout.write(':4\n');
  process.exit(0);
}
process.argv.splice(2, Infinity, '__complete', ...mapped);
require('./run.js');
