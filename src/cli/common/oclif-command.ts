/**
 * Builds the oclif command class for a command spec (src/cli/oclif-commands.ts lists them), so --help, the manifest,
 * completion and argument parsing come from oclif while the behaviour stays in the spec.
 */
import { Args, type Command, Flags } from '@oclif/core';
import type { CommandSpec, FlagValues } from './command-spec.js';
import { executeSpec } from './execute.js';
import { processIo } from './io.js';
import { KcptCommand } from './kcpt-command.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyFlags = Record<string, any>;

export function oclifFlags(spec: CommandSpec): AnyFlags {
  return Object.fromEntries(
    spec.flags.map((f) => {
      const common = {
        description: f.description,
        hidden: f.hidden,
        helpGroup: f.helpGroup,
        ...(f.char ? { char: f.char as 'o' } : {}),
        ...(f.env ? { env: f.env } : {}),
        ...(f.required ? { required: true } : {}),
      };
      if (f.kind === 'boolean') return [f.name, Flags.boolean(common)];
      if (f.kind === 'integer') return [f.name, Flags.integer({ ...common, default: f.default as number | undefined, min: f.min, max: f.max })];
      if (f.multiple) return [f.name, Flags.string({ ...common, multiple: true })];
      const withDefault = { ...common, default: f.default as string | undefined };
      if (f.options) return [f.name, Flags.string({ ...withDefault, options: [...f.options] })];
      return [f.name, Flags.string(withDefault)];
    }),
  );
}

export function commandClass(spec: CommandSpec): typeof Command {
  const args = Object.fromEntries(spec.args.map((a) => [a.name, Args.string({ description: a.description, required: a.required })]));
  const SpecCommand = class extends KcptCommand {
    static override summary = spec.summary;
    static override description = spec.description;
    static override examples = spec.examples ?? [];
    static override aliases = (spec.aliases ?? []).map((a) => a.split(' ').join(':'));
    static override hiddenAliases = (spec.hiddenAliases ?? []).map((a) => a.split(' ').join(':'));
    static override args = args;
    static override flags = oclifFlags(spec);

    async run(): Promise<void> {
      const parsed = await this.parse(SpecCommand);
      const code = await executeSpec(spec, {
        args: parsed.args as Record<string, string | undefined>,
        flags: parsed.flags as FlagValues,
        io: processIo(),
      });
      if (code !== 0) this.exit(code);
    }
  };
  return SpecCommand;
}
