/**
 * The wizard's text prompt (@inquirer/core): @inquirer/input's behaviour — the value checked on
 * Enter and kept to be fixed when refused (or cleared, for a one-word answer), a transformer while typing — plus a help line under
 * the input (what Enter does, how to go back), which the stock input has no place for. The
 * yes/no questions use it too, with a validator that takes only the language's yes and no.
 */
import { createPrompt, isEnterKey, makeTheme, useEffect, useKeypress, usePrefix, useState } from '@inquirer/core';

export interface TextPromptConfig {
  message: string;
  /** put in the input to be edited (a previous answer, a refused value) */
  default?: string;
  /** true, or why the value is refused (shown under the input) */
  validate?: (value: string) => true | string;
  transformer?: (value: string, o: { isFinal: boolean }) => string;
  /** the line under the input while nothing is wrong */
  help?: string;
  /** a refused value is cleared rather than kept to be fixed (a one-word answer such as yes/no) */
  clearRefused?: boolean;
}

export const textPrompt = createPrompt<string, TextPromptConfig>((config, done) => {
  const theme = makeTheme();
  const [status, setStatus] = useState<'idle' | 'done'>('idle');
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | undefined>(undefined);
  const prefix = usePrefix({ status, theme });

  useKeypress((key, rl) => {
    if (status !== 'idle') return;
    if (isEnterKey(key)) {
      const verdict = config.validate ? config.validate(value) : true;
      if (verdict === true) {
        setStatus('done');
        done(value);
      } else {
        // Enter cleared readline's line: put the refused value back, to be fixed in place, or
        // leave the line empty for a new answer
        if (config.clearRefused) setValue('');
        else rl.write(value);
        setError(verdict);
      }
    } else {
      setValue(rl.line);
      setError(undefined);
    }
  });

  useEffect((rl) => {
    if (config.default) {
      rl.write(config.default);
      setValue(config.default);
    }
  }, []);

  const message = theme.style.message(config.message, status);
  const shown = config.transformer ? config.transformer(value, { isFinal: status === 'done' }) : status === 'done' ? theme.style.answer(value) : value;
  const bottom = status === 'done' ? '' : error ? theme.style.error(error) : config.help ? theme.style.help(config.help) : '';
  return [[prefix, message, shown].join(' '), bottom];
});
