import { commandClass } from '../../src/cli/common/oclif-command.js';
import { snapshotSaveSpec } from '../../src/cli/snapshot/specs.js';

export default commandClass(snapshotSaveSpec);
