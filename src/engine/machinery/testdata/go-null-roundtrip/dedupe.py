"""Reads main.go's JSON lines; writes each (kind, Go struct, field) once, at its shallowest path."""
import json
import sys

seen = set()
out = {}
for line in sys.stdin:
    row = json.loads(line)
    steps = row['path'].split('.')
    field = steps[-1] if steps[-1] not in ('[]', '{}') else steps[-2] + '.' + steps[-1]
    key = (row['kind'], row['struct'], field)
    if key in seen:
        continue
    seen.add(key)
    out.setdefault(row['kind'], []).append([row['path']] + ([] if row.get('absent') else [row['result']]))
text = json.dumps(out, separators=(',', ':')).replace('],[', '],\n[').replace(':[[', ':[\n[')
sys.stdout.write(text)
