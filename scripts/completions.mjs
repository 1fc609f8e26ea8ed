// Regenerates completions/ from the command tree (run after adding commands: npm run completions).
import { execFileSync } from 'node:child_process';
import { writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const files = { bash: 'mpay.bash', zsh: '_mpay', fish: 'mpay.fish', powershell: 'mpay.ps1' };
mkdirSync(join(root, 'completions'), { recursive: true });
for (const [shell, file] of Object.entries(files)) {
  const out = execFileSync(process.execPath, [join(root, 'bin/mpay.js'), 'completion', shell], { encoding: 'utf8' });
  writeFileSync(join(root, 'completions', file), out);
  console.log(`completions/${file}`);
}
