import { commandClass } from '../../src/cli/common/oclif-command.js';
import { snapshotRestoreSpec } from '../../src/cli/snapshot/specs.js';

export default commandClass(snapshotRestoreSpec);
