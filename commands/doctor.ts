import { commandClass } from '../src/cli/common/oclif-command.js';
import { doctorSpec } from '../src/cli/doctor/spec.js';

export default commandClass(doctorSpec);
