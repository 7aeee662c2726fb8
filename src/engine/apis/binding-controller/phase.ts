/** A binding seen for the first time turns Binding (InitialBindingCompleted False) before anything is bound. */
import type { StepResult } from '../../controllers/reconcile-steps.js';
import type { BindingState } from './state.js';

export function initialPhaseStep(state: BindingState): StepResult {
  if (state.status.phase !== '') return 'continue';
  state.status.phase = 'Binding';
  state.set({ type: 'InitialBindingCompleted', status: 'False', reason: 'WaitingForEstablished', message: 'Waiting for API(s) to be established', severity: 'Info' });
  state.writeStatus();
  return 'continue';
}
