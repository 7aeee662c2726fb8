/** Colours of the browser, by meaning: one place decides what a phase looks like. */
export type Colour = 'green' | 'yellow' | 'red' | 'magenta' | 'cyan' | 'gray' | 'white';

export function phaseColour(phase: string | undefined, deleting = false): Colour {
  if (deleting) return 'red';
  switch (phase) {
    case 'Ready':
    case 'Bound':
      return 'green';
    case 'Scheduling':
    case 'Initializing':
    case 'Binding':
      return 'yellow';
    case 'Terminating':
      return 'red';
    case 'Unavailable':
      return 'magenta';
    default:
      return 'gray';
  }
}

export const accent: Colour = 'cyan';
