/** Flags `kcpt stop` and `kcpt status` share with `kcpt start`: the same root directory finds the same server. */
import { Flags } from '@oclif/core';

export const lifecycleFlags = {
  'root-directory': Flags.string({ default: '.kcp', description: 'Root directory of the server (as given to kcpt start).' }),
  output: Flags.string({ char: 'o', options: ['json', 'yaml'], description: 'Print the result as json or yaml.' }),
};
