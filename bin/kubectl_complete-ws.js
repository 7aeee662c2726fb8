#!/usr/bin/env node
// kubectl's plugin completion: `kubectl ws <TAB>` runs kubectl_complete-ws with the words after `ws`; kcpt answers
// in cobra's __complete format, as for `kcpt ws <TAB>`.
process.argv.splice(2, 0, '__complete', 'ws');
require('./run.js');
