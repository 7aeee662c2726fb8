import { commandClass } from '../../src/cli/common/oclif-command.js';
import { exportListSpec } from '../../src/cli/apis/specs.js';

export default commandClass(exportListSpec);
