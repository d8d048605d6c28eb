// A fetch for the frameworks' `fetch` options: records the URL and the JSON body of each request
// they send and the text of crux's answer (so a test can check what goes over the wire, such as
// the blocks sent back in a tool loop), passing both on unchanged.
export function recordingFetch() {
  const requests = [];
  async function recording(input, init = {}) {
    const request = new Request(input, init);
    const text = request.body ? await request.clone().text() : '';
    const entry = { url: request.url, body: text ? JSON.parse(text) : undefined };
    requests.push(entry);
    const response = await fetch(request);
    // A promise: the whole answer, read from a copy as the framework consumes the original
    // (marked handled, so that a connection cut short fails only a test that awaits it).
    entry.responseText = response.clone().text();
    entry.responseText.catch(() => {});
    return response;
  }
  return { fetch: recording, requests };
}

// The signatures crux gave the thinking blocks of an Anthropic Messages answer (a JSON body or
// an SSE stream, where a signature_delta sets the block's signature as the official SDK's
// accumulator does), in block order.
export function anthropicSignatures(responseText) {
  if (responseText.trimStart().startsWith('{')) {
    return JSON.parse(responseText).content.filter((b) => b.type === 'thinking').map((b) => b.signature);
  }
  const byIndex = new Map();
  for (const line of responseText.split('\n')) {
    if (!line.startsWith('data:')) continue;
    const event = JSON.parse(line.slice(5));
    if (event.type === 'content_block_start' && event.content_block.type === 'thinking') {
      byIndex.set(event.index, event.content_block.signature ?? '');
    } else if (event.type === 'content_block_delta' && event.delta.type === 'signature_delta') {
      byIndex.set(event.index, event.delta.signature);
    }
  }
  return [...byIndex.keys()].sort((a, b) => a - b).map((i) => byIndex.get(i));
}
