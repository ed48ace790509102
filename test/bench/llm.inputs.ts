/** A 2,000,000-character generation: one long user message and a short answer. */
export function bigGeneration(): Record<string, unknown> {
  const long = Array.from({ length: 60_000 }, (_, index) => `word${index % 97} lorem ipsum dolor sit amet.`).join(' ').slice(0, 2_000_000);
  return {
    id: 'bench-generation',
    event: '$ai_generation',
    properties: { $ai_model: 'gpt-4.1', $ai_input: [{ role: 'user', content: long }], $ai_output_choices: [{ message: { role: 'assistant', content: 'Done.' } }] },
  };
}

/** A trace of 1,000 spans: a spine 12 levels deep, the rest hung under earlier spans above the bottom level. */
export function deepTrace(): Record<string, unknown> {
  const nodes: { node: { event: Record<string, unknown>; children: unknown[] }; depth: number }[] = [];
  for (let id = 0; id < 1000; id++) {
    const created = {
      event: { id: `span-${id}`, event: '$ai_span', properties: { $ai_span_name: `step ${id}`, $ai_latency: id / 100, $ai_input_state: { id }, $ai_output_state: `done ${id}` } },
      children: [] as unknown[],
    };
    let parentIndex = id < 12 ? id - 1 : Math.floor((((id * 2654435761) % 2 ** 32) / 2 ** 32) * id);
    while (parentIndex >= 0 && (nodes[parentIndex]?.depth ?? 0) >= 11) parentIndex--;
    const parent = parentIndex >= 0 ? nodes[parentIndex] : undefined;
    parent?.node.children.push(created);
    nodes.push({ node: created, depth: parent ? parent.depth + 1 : 0 });
  }
  return { trace: { id: 'bench-trace', properties: { $ai_trace_id: 'bench-trace', $ai_span_name: 'bench' } }, hierarchy: [nodes[0]!.node] };
}
