/**
 * Every command described by a spec (src/cli/common/command-spec.ts). The fast path matches argv against this
 * list; commands/ builds oclif classes from the same specs. Keep imports here cheap: spec modules only.
 */
import { apisSpecs } from './apis/specs.js';
import { doctorSpec } from './doctor/spec.js';
import type { CommandSpec } from './common/command-spec.js';
import { kubeconfigSpec } from './kubeconfig/spec.js';
import { serverSpecs } from './server/specs.js';
import { snapshotSpecs } from './snapshot/specs.js';
import { testenvDeleteSpec, testenvSpec } from './testenv/spec.js';
import { versionSpec } from './version/spec.js';
import { wsSpecs } from './ws/specs.js';

export const commandSpecs: CommandSpec[] = [...wsSpecs, ...serverSpecs, kubeconfigSpec, ...apisSpecs, ...snapshotSpecs, testenvSpec, testenvDeleteSpec, versionSpec, doctorSpec];
