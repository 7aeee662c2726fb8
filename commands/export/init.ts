import { commandClass } from '../../src/cli/common/oclif-command.js';
import { exportInitSpec } from '../../src/cli/apis/specs.js';

export default commandClass(exportInitSpec);
