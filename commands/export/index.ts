import { commandClass } from '../../src/cli/common/oclif-command.js';
import { exportSpec } from '../../src/cli/apis/specs.js';

export default commandClass(exportSpec);
