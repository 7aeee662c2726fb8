import { commandClass } from '../../src/cli/common/oclif-command.js';
import { testenvSpec } from '../../src/cli/testenv/spec.js';

export default commandClass(testenvSpec);
