/**
 * The commands bin/run.js's fast path runs (src/cli/common/command-spec.ts), bundled into dist/cli-bundle: keep imports
 * here cheap, spec modules only. oclif-commands.ts builds oclif's classes from these and the two server commands.
 */
import { apisSpecs } from './apis/specs.js';
import { completionSpec } from './completion/spec.js';
import { doctorSpec } from './doctor/spec.js';
import type { CommandSpec } from './common/command-spec.js';
import { kubeconfigSpec } from './kubeconfig/spec.js';
import { serverSpecs } from './server/specs.js';
import { snapshotSpecs } from './snapshot/specs.js';
import { testenvDeleteSpec, testenvSpec } from './testenv/spec.js';
import { versionSpec } from './version/spec.js';
import { wsSpecs } from './ws/specs.js';

export const commandSpecs: CommandSpec[] = [...wsSpecs, ...serverSpecs, kubeconfigSpec, ...apisSpecs, ...snapshotSpecs, testenvSpec, testenvDeleteSpec, versionSpec, doctorSpec, completionSpec];
