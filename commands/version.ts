import { commandClass } from '../src/cli/common/oclif-command.js';
import { versionSpec } from '../src/cli/version/spec.js';

export default commandClass(versionSpec);
