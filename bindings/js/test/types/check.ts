// Compiled (never run) against the installed package by bindings/test.sh:
// index.d.ts must type the API as it is used here, and refuse misuse.
import * as opguard from 'opguard';

const form: opguard.CanonicalForm = opguard.kernelCanonicalize('void k<int>(int)', { fields: ['identity'] });
const identity: string | undefined = form.identity;
const same: boolean = opguard.kernelMatch('clamp_position_kernel', 'void clamp_position_kernel<long>(long*)');
const verdicts: opguard.KernelVerdict[] = opguard.kernelMatchBatch([['a', 'b']]);
const short: string = opguard.kernelShortName('void k<int>(int)');
const where: string = opguard.libraryPath();
const info: opguard.JsonObject = opguard.traceInfo(null, { text: '{"traceEvents": []}' });
try {
  opguard.census('capture.json', { requireClassified: true });
  opguard.censusCompareWidths('w2.json', 'w8.json', undefined, { families: 'families.json' });
} catch (e) {
  if (e instanceof opguard.CensusError) {
    const code: string = e.code;
    console.log(code);
  }
}
// @ts-expect-error kernelMatch takes two symbols
opguard.kernelMatch('only one');
// @ts-expect-error the family table is an option, not a fourth document
opguard.censusCompareWidths('w2.json', 'w8.json', undefined, 'families.json');
// @ts-expect-error the snake_case names are Python's
opguard.kernel_match('a', 'b');
console.log(identity, same, verdicts, short, where, info);
