/** The JUnit XML report of a smoke run: one <testcase> per step. */
import type { SmokeSummary } from './types.js';

/** Text for XML: the five entities escaped, characters XML 1.0 cannot carry removed. */
export function xmlEscape(s: string): string {
  return s
    // biome-ignore lint/suspicious/noControlCharactersInRegex: XML 1.0 forbids these characters; they are what this removes
    .replace(/[^\x09\x0A\x0D\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

export function junitXml(s: SmokeSummary): string {
  const secs = (ms: number) => (ms / 1000).toFixed(3);
  const failures = s.steps.filter((x) => x.status === 'failed').length;
  const skipped = s.steps.filter((x) => x.status === 'skipped' || x.status === 'not_run').length;
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="mpay smoke" tests="${s.steps.length}" failures="${failures}" errors="0" skipped="${skipped}" time="${secs(s.duration_ms)}">`,
    `  <testsuite name="mpay smoke" tests="${s.steps.length}" failures="${failures}" errors="0" skipped="${skipped}" time="${secs(s.duration_ms)}" timestamp="${xmlEscape(s.started_at)}" hostname="${xmlEscape(s.target)}">`,
  ];
  for (const st of s.steps) {
    const open = `    <testcase classname="mpay.smoke" name="${xmlEscape(st.name)}" time="${secs(st.duration_ms)}"`;
    if (st.status === 'passed') {
      lines.push(st.detail ? `${open}>\n      <system-out>${xmlEscape(st.detail)}</system-out>\n    </testcase>` : `${open}/>`);
    } else if (st.status === 'failed') {
      const e = st.error ?? { message: 'failed' };
      const body = [e.message, e.code ? `code: ${e.code}` : '', e.status ? `HTTP status: ${e.status}` : '', e.request_id ? `request id: ${e.request_id}` : '']
        .filter(Boolean)
        .join('\n');
      lines.push(`${open}>\n      <failure message="${xmlEscape(e.message)}" type="${xmlEscape(e.code ?? 'error')}">${xmlEscape(body)}</failure>\n    </testcase>`);
    } else {
      const why = st.status === 'not_run' ? 'not run: an earlier step failed' : (st.detail ?? 'skipped');
      lines.push(`${open}>\n      <skipped message="${xmlEscape(why)}"/>\n    </testcase>`);
    }
  }
  lines.push('  </testsuite>', '</testsuites>', '');
  return lines.join('\n');
}
