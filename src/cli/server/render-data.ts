/** `-o json|yaml` for the server commands: the same object, as indented JSON or as YAML (yaml loaded only then). */
export type DataFormat = 'json' | 'yaml';

export async function renderData(value: unknown, format: DataFormat): Promise<string> {
  if (format === 'json') return JSON.stringify(value, null, 2);
  const { stringify } = await import('yaml');
  return stringify(value).trimEnd();
}
