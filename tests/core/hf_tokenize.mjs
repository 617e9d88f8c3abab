// Reference for the tokenizer.json tests: Hugging Face's tokenizers as shipped on npm
// (@huggingface/transformers), offline.
// Usage: node hf_tokenize.mjs NPM_PREFIX TOKENIZER_DIR TEXT...  (writes TEXT.ids: space-separated
// ids of AutoTokenizer.encode(whole file as UTF-8), special tokens added as the tokenizer says)
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const [prefix, tokenizerDir, ...texts] = process.argv.slice(2);
const require = createRequire(path.join(prefix, 'package.json'));
const { AutoTokenizer, env } = require('@huggingface/transformers');
env.allowRemoteModels = false;
const tokenizer = await AutoTokenizer.from_pretrained(path.resolve(tokenizerDir), {
    local_files_only: true,
});
for (const file of texts) {
    const ids = tokenizer.encode(fs.readFileSync(file, 'utf8'));
    fs.writeFileSync(file + '.ids', ids.join(' '));
}
