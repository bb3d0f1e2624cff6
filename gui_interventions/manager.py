"""Finding intervention plugins by name and running the selected ones in order."""

from __future__ import annotations

import difflib
import inspect
import warnings
from contextlib import ExitStack, contextmanager
from typing import Any, Callable, Iterator, Mapping, Sequence

import pluggy

from gui_interventions import hookspecs
from gui_interventions.payloads import ForwardContext, RequestContext, ResponseContext
from gui_interventions.sent_images import SentImageLog
from gui_interventions.sent_images import default_folder as sent_images_folder
from gui_core.plugin_dists import ep_dist_name as _dist_name
from gui_core.plugin_dists import is_own as _is_own
from gui_core.plugin_errors import describe
from gui_core.plugin_groups import GROUPS, entry_points
from gui_core.image_files import clear_file_source

GROUP = GROUPS["intervention"]  # gui_eval.interventions (the old spelling gui_interventions is read too)
BUILTIN_MODULE = "gui_interventions."  # the built-ins: audited never to change an image in place


def _is_builtin_plugin(plugin: Any) -> bool:
    """Whether a registered plugin object is one of ours (its class or module lives in this package)."""
    module = plugin.__name__ if inspect.ismodule(plugin) else type(plugin).__module__
    return (module or "").startswith(BUILTIN_MODULE)


def _load_all() -> tuple[dict[str, Callable[..., Any]], dict[str, str]]:
    """Load every entry point of the group on its own: (factories by name, failure message by name).

    A third-party entry point named like a built-in one is left out and reported under the key ``"name (dist)"``
    (the built-in keeps the name and works); two third-party entry points of one name are both left out (which one
    runs would depend on install order).
    """
    found: dict[str, Callable[..., Any]] = {}
    source: dict[str, str] = {}
    own: set[str] = set()
    broken: dict[str, str] = {}
    for ep in sorted(entry_points(GROUP), key=lambda e: (not _is_own(e), e.name, _dist_name(e))):
        where = f"{_dist_name(ep)}: {ep.value}"
        if ep.name in own:
            broken[f"{ep.name} ({_dist_name(ep)})"] = (
                f"intervention {ep.name!r} of {where} shadows the built-in {source[ep.name]} and is left out "
                f"(the built-in runs); rename it")
            continue
        if ep.name in source or ep.name in broken:
            broken[ep.name] = (f"intervention name {ep.name!r} is registered twice: by {source.get(ep.name, '?')} "
                               f"and by {where}; uninstall or rename one")
            found.pop(ep.name, None)
            continue
        source[ep.name] = where
        if _is_own(ep):
            own.add(ep.name)
        try:
            obj = ep.load()
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # SystemExit at import too: one plugin never ends the process
            broken[ep.name] = f"intervention plugin {ep.name!r} ({where}) failed to load: {describe(exc)}"
            continue
        if inspect.ismodule(obj) or not callable(obj):
            kind = "a module" if inspect.ismodule(obj) else f"a {type(obj).__name__}"
            broken[ep.name] = (f"intervention entry point {ep.name!r} ({where}) names {kind}, not a class or factory; "
                               f"write it as 'module:ClassName'")
            continue
        found[ep.name] = obj
    return found, broken


def available() -> dict[str, Callable[..., Any]]:
    """Every loadable intervention factory registered in the ``gui_interventions`` entry-point group.

    An entry point's value is a factory (usually a class) called with the run's
    parameters for that intervention; it returns the plugin object. Plugins that fail to
    load are left out with a warning naming them (see :func:`broken`).
    """
    found, failed = _load_all()
    for message in failed.values():
        warnings.warn(message, stacklevel=2)
    return found


_REPORTED: set[str] = set()


def _report(failed: Mapping[str, str]) -> None:
    """Each broken or shadowing intervention on stderr, once per process, when a run resolves its interventions
    (stderr, not ``warnings``: lmms-eval ignores every warning)."""
    import sys

    for message in failed.values():
        if message not in _REPORTED:
            _REPORTED.add(message)
            print(f"gui-eval: {message}", file=sys.stderr, flush=True)


def broken() -> dict[str, str]:
    """Installed intervention entry points that cannot be used, with the reason."""
    return _load_all()[1]


def parse_selection(spec: str | Sequence[str] | None) -> list[str]:
    """``"a+b"`` (model-args form) or a list -> ordered, de-duplicated names."""
    if spec is None or spec == "":
        return []
    names = spec.split("+") if isinstance(spec, str) else list(spec)
    out: list[str] = []
    for n in (x.strip() for x in names):
        if n and n not in out:
            out.append(n)
    return out


def split_params(names: Sequence[str], params: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """``{"crop.alpha": 0.8}`` -> ``{"crop": {"alpha": 0.8}}``; a prefix naming no selected plugin is an error."""
    per: dict[str, dict[str, Any]] = {n: {} for n in names}
    for key, value in params.items():
        plugin, _, param = key.partition(".")
        if plugin not in per or not param:
            raise ValueError(f"intervention parameter {key!r} names no selected intervention (selected: {', '.join(names) or 'none'})")
        per[plugin][param] = value
    return per


_DEFAULT = object()


class InterventionRun:
    """The selected plugins of one run, registered on their own plugin manager, called in order.

    ``sent_images``: where the images an intervention changed are recorded (``gui_interventions.sent_images``):
    by default ``$GUI_EVAL_SENT_IMAGES`` or the lmms-eval command line's ``--output_path``; None records nothing."""

    def __init__(self, plugins: Sequence[tuple[str, Any]], sent_images: Any = _DEFAULT) -> None:
        self.pm = pluggy.PluginManager("gui_interventions")
        self.pm.add_hookspecs(hookspecs)
        self.plugins = list(plugins)
        for name, plugin in self.plugins:
            self.pm.register(plugin, name=name)
        self.pm.check_pending()
        folder = sent_images_folder() if sent_images is _DEFAULT else sent_images
        self.sent_images = SentImageLog(folder, self.names) if folder is not None and self.plugins else None

    def _record_sent(self, before: RequestContext, after: RequestContext, stage: str) -> None:
        """Record the images an intervention changed; a failure to record warns once and never stops the run."""
        if self.sent_images is None or before is after:
            return
        try:
            self.sent_images.record(before, after, stage)
        except Exception as exc:  # noqa: BLE001 - recording is for the viewer only
            warnings.warn(f"sent images not recorded from now on ({self.sent_images.folder}): {exc!r}", stacklevel=2)
            self.sent_images = None

    @property
    def names(self) -> list[str]:
        return [n for n, _ in self.plugins]

    def _impls(self, hook: str) -> list[pluggy.HookImpl]:
        impls = {id(i.plugin): i for i in getattr(self.pm.hook, hook).get_hookimpls()}
        return [impls[id(p)] for _, p in self.plugins if id(p) in impls]

    def _call(self, impl: pluggy.HookImpl, **kwargs: Any) -> Any:
        return impl.function(**{k: v for k, v in kwargs.items() if k in impl.argnames})

    def request(self, request: RequestContext) -> RequestContext:
        original = request
        third_party = False
        for impl in self._impls("gui_intervention_request"):
            third_party = third_party or not _is_builtin_plugin(impl.plugin)
            new = self._call(impl, request=request)
            if new is not None:
                if not isinstance(new, RequestContext):
                    raise TypeError(f"intervention {impl.plugin_name!r} returned {type(new).__name__}, expected RequestContext")
                request = new
        if third_party:
            # A third-party request stage may have drawn on an image in place (docs/plugins.md asks it not to): its
            # images lose the file mark, so gui_openai sends their pixels, never the file's bytes (gui_core.image_files).
            for image in (*original.images, *request.images):
                clear_file_source(image)
        self._record_sent(original, request, "request")
        return request

    @contextmanager
    def forward(self, forward: ForwardContext) -> Iterator[None]:
        """All selected forward-stage context managers, entered in order, always exited."""
        with ExitStack() as stack:
            for impl in self._impls("gui_intervention_forward"):
                cm = self._call(impl, forward=forward)
                if cm is not None:
                    stack.enter_context(cm)
            yield

    def response(self, response: ResponseContext) -> str:
        text = response.text
        reruns = [0]
        impls = self._impls("gui_intervention_response")
        third_party = any(not _is_builtin_plugin(impl.plugin) for impl in impls)

        def rerun(req: RequestContext) -> str:  # a second pass (e.g. the crop's): its images are recorded too
            reruns[0] += 1
            if third_party:  # as in request(): images a third-party plugin handed back are sent as pixels
                for image in req.images:
                    clear_file_source(image)
            self._record_sent(response.request, req, f"rerun-{reruns[0]}")
            return response.rerun(req)

        for impl in impls:
            new = self._call(impl, response=ResponseContext(text=text, request=response.request, rerun=rerun))
            if new is not None:
                text = new if isinstance(new, str) else str(new)  # str subclasses carry captures (gui_core.logit_capture)
        return text


def resolve(selection: str | Sequence[str] | None, params: Mapping[str, Any] | None = None,
            factories: Mapping[str, Callable[..., Any]] | None = None) -> list[tuple[str, Callable[..., Any], dict[str, Any]]]:
    """The selected interventions as (name, factory, parameters), checked without building any plugin.

    Unknown names get a did-you-mean error; a parameter whose prefix names no selected intervention,
    or that the factory's signature does not take, is an error. ``build_run`` and a submission's
    re-check (``gui_models.model_args``) both use this: one check of intervention arguments.
    """
    names = parse_selection(selection)
    per = split_params(names, params or {})
    failed: dict[str, str] = {}
    if factories is None and names:
        table, failed = _load_all()
        _report(failed)
    else:
        table = dict(factories or {})
    out = []
    for name in names:
        if name in failed:
            raise ValueError(f"intervention {name!r} is installed but broken: {failed[name]}")
        if name not in table:
            close = difflib.get_close_matches(name, table, n=3)
            hint = f" Did you mean {', '.join(close)}?" if close else ""
            raise ValueError(f"unknown intervention {name!r}.{hint} Available: {', '.join(sorted(table)) or 'none'}")
        try:
            inspect.signature(table[name]).bind(**per[name])
        except TypeError as exc:
            raise ValueError(f"bad parameters for intervention {name!r}: {exc}") from exc
        except ValueError:  # a factory without a readable signature: calling it is the check
            pass
        out.append((name, table[name], per[name]))
    return out


def build_run(selection: str | Sequence[str] | None, params: Mapping[str, Any] | None = None,
              factories: Mapping[str, Callable[..., Any]] | None = None) -> InterventionRun:
    """Instantiate only the selected interventions (checked by :func:`resolve`), in order."""
    plugins = []
    for name, factory, kwargs in resolve(selection, params, factories):
        try:
            plugins.append((name, factory(**kwargs)))
        except TypeError as exc:
            raise ValueError(f"bad parameters for intervention {name!r}: {exc}") from exc
    return InterventionRun(plugins)
