import { commandClass } from '../../src/cli/common/oclif-command.js';
import { exportSnapshotSpec } from '../../src/cli/apis/specs.js';

export default commandClass(exportSnapshotSpec);
