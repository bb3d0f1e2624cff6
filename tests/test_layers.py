"""Decoder layers of every supported family (tiny configs built offline) and the GUI-XLI hook on the right one."""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn

from gui_interventions.payloads import ForwardContext, RequestContext
from gui_interventions.xli import GuiXLI, steer
from gui_models.layers import capture_last_token, decoder_layer_path, decoder_layers, last_real_positions, layer_module

from xli_helpers import FAMILIES, hand_memory, tiny_family_model


@pytest.mark.parametrize("family", FAMILIES)
def test_language_layers_found_not_the_vision_tower(family):
    model = tiny_family_model(family)
    path = decoder_layer_path(model)
    assert path == "model.language_model.layers"
    layers = decoder_layers(model)
    assert len(layers) == 3
    assert layers is model.get_submodule("model.language_model.layers")


class _Legacy(nn.Module):
    """The shape of InternVL remote code (and pre-4.52 LLaVA): ``language_model.model.layers``."""

    def __init__(self):
        super().__init__()
        self.vision_model = nn.Module()
        self.vision_model.encoder = nn.ModuleList([nn.Linear(2, 2) for _ in range(6)])
        self.language_model = nn.Module()
        self.language_model.model = nn.Module()
        self.language_model.model.layers = nn.ModuleList([nn.Linear(2, 2) for _ in range(4)])


def test_remote_code_layout_is_found():
    model = _Legacy()
    assert decoder_layer_path(model) == "language_model.model.layers"
    assert layer_module(model, 1) is model.language_model.model.layers[0]
    with pytest.raises(ValueError, match="out of range.*1..4"):
        layer_module(model, 5)


def test_unknown_architecture_is_a_clear_error():
    model = nn.Module()
    model.visual = nn.Module()
    model.visual.blocks = nn.ModuleList([nn.Linear(2, 2)])
    with pytest.raises(ValueError, match="cannot find the decoder layers of Module.*LAYER_PATHS"):
        decoder_layers(model)


def test_last_real_positions_for_left_and_right_padding():
    mask = torch.tensor([[0, 0, 1, 1], [1, 1, 1, 1], [1, 1, 0, 0]])
    assert last_real_positions(mask, 4).tolist() == [3, 3, 1]
    assert last_real_positions(mask, 5) is None


@pytest.mark.parametrize("family", FAMILIES)
def test_xli_hook_steers_the_last_token_at_the_chosen_layer(family):
    """Text-only forward: h^(2) at the last real token becomes Eq. 6; h^(1) is untouched; hook gone afterwards."""
    model = tiny_family_model(family)
    torch.manual_seed(1)
    ids = torch.randint(3, 128, (2, 5))
    mask = torch.tensor([[0, 1, 1, 1, 1], [1, 1, 1, 1, 1]])  # row 0 is left-padded
    values = torch.randn(2, 32)
    memory = hand_memory(torch.randn(2, 32), values, ["AU", "AU"], layers=(1, 2))
    plugin = GuiXLI(memory=memory, layer=2, alpha=0.5, k=2)
    reqs = [RequestContext(text="q", images=(), doc_id=i, task="t", gen_kwargs={}, doc={"lang": "ja", "dimension": "AU"})
            for i in range(2)]
    layers = decoder_layers(model)
    with torch.no_grad(), capture_last_token(model, [1, 2], mask) as before:
        model(input_ids=ids, attention_mask=mask)
    ctx = ForwardContext(model, None, {"input_ids": ids, "attention_mask": mask}, reqs, layers=layers)
    with torch.no_grad(), plugin.gui_intervention_forward(forward=ctx):
        assert len(layers[1]._forward_hooks) == 1 and not layers[0]._forward_hooks
        with capture_last_token(model, [1, 2], mask) as after:
            model(input_ids=ids, attention_mask=mask)
    assert not any(layer._forward_hooks for layer in layers)
    expected = steer(before[2], values.mean(0).expand(2, -1), 0.5)
    torch.testing.assert_close(after[2], expected, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(after[1], before[1])
    torch.testing.assert_close(after[2].norm(dim=-1), before[2].norm(dim=-1), rtol=1e-5, atol=1e-5)
    assert not torch.allclose(after[2], before[2])
