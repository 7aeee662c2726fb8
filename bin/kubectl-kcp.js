#!/usr/bin/env node
// kubectl plugin shim: `kubectl kcp ws|workspace …` runs `kcpt ws …`; kcp's other subcommands get a clear answer.
import('../dist/src/cli/plugins/kubectl-kcp.js').then(({ routeKcpPlugin }) => {
  const route = routeKcpPlugin(process.argv.slice(2));
  if (route.kind === 'exit') {
    if (route.stdout) process.stdout.write(route.stdout);
    if (route.stderr) process.stderr.write(route.stderr);
    process.exit(route.code);
  }
  process.argv.splice(2, Infinity, ...route.argv);
  require('./run.js');
});
