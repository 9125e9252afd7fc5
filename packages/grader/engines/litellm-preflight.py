"""The preflight of an engine that talks to its model through LiteLLM (mini-swe-agent), run by the engine's own python:
one completion of the prompt through the same library, key and endpoint as the engine's calls, its answer alone on
stdout. The engine's agent loop answers only in shell commands, so it cannot echo a sentinel itself.

    python3 litellm-preflight.py MODEL PROMPT [API_BASE]    (without API_BASE, the provider's own)
"""

import sys

import litellm

model, prompt, *api_base = sys.argv[1:]
options = {"api_base": api_base[0]} if api_base else {}
response = litellm.completion(model=model, messages=[{"role": "user", "content": prompt}], **options)
print(response.choices[0].message.content or "")
