"""Whether the machine code's integer arithmetic stays in its types, for a
proof (`walk.py`) that takes it as exact.

Each integer value the code computes with `+ - *` (or a shift), where it
computes it, needs its type to hold it: given the facts there, its upper
bound in the parameters becomes a limit (`limits.py`) and its lower bound
must be provably within the type; where neither is known it may wrap
(`WRAPS`). What a value needs goes with it:
- a variable carries what its value's arithmetic needed (`CARRY` in the
  environment), so `let t = i + k` ... `a[t]` checks `i + k` with the
  facts where it was computed, not the narrower ones after `if t < n`;
- a loop counter's steps (`i = i + 2`) are what its atom needs: the atom
  stands for every value a step made, and after the loop for the last;
- a guard narrows only if its own arithmetic cannot wrap: an `if` whose
  comparison may wrap teaches nothing, and what its arithmetic needs
  governs the accesses in its branches. A loop's condition is seen before
  its counters have an upper bound, so it is checked once the body is
  walked, with each counter at its value before the loop and at each of
  its steps' upper bounds (`while i + 8 <= n` needs `n + 8` in i32).
An access then needs what its index's arithmetic and variables need, its
guards', and its atoms' (and the atoms theirs are bounded by), resolved
when the function is walked (a guard's with the facts before it, the rest
with the parameter minimums known at the access, as those hold in the whole
call once every guard's arithmetic is kept in its type): a limit each for the bindings to check, or the
pointer is unchecked (`reasons.WRAPS`)."""
from __future__ import annotations

from dataclasses import dataclass
from itertools import product
from math import prod

from ...syntax import ast as A
from .limits import IndexLimit
from .poly import Poly
from .reasons import WRAPS
from .values import int_range

CARRY = "\0carry"  # environment key: {variable: what its value's arithmetic needs}
_COMBINATIONS = 16  # values a counter's last step may have left, tried at most


@dataclass(frozen=True, eq=False)
class Need:
    """`value`, computed where `facts` hold, must stay in its type's range `most`."""
    value: Poly
    most: tuple[int, int]
    type: str
    facts: object  # facts.Facts


class Wraps:
    """Mixed into `walk.Walk`: uses its `value`, `stays_above`, `tick` and `fail`."""

    def reset_wraps(self) -> None:
        self.needs: dict[str, list] = {}  # atom -> what the values it stands for needed
        self.links: dict[str, set[str]] = {}  # atom -> the atoms its value came from
        self.tops: dict[str, list] = {}  # a loop's head atom -> its steps' upper bounds (None: none)
        self.exits: dict[str, tuple] = {}  # a loop's exit atom -> (its value before, its steps' tops)
        self.heads: list[dict[str, str]] = []  # the loops being walked: {counter: head atom}
        self.regions: list[list] = []  # what the guards around this point need
        self.pending: list[tuple] = []  # accesses: (ref, needs, regions, atoms, parameter minimums)
        self.judged: dict = {}  # (need, parameter minimums) -> what fits found: a guard's is asked twice

    # ---- what arithmetic needs ----
    def arithmetic(self, e: A.Expr, env: dict, facts) -> list:
        """What `e`'s integer arithmetic, computed here, needs to stay in its types (Needs),
        with what the variables it reads carry."""
        found: list = []
        carry = env.get(CARRY, {})
        here = None  # the facts as they are now: a guard after this teaches `facts` more
        stack = [e]
        while stack:
            x = stack.pop()
            self.tick()
            if isinstance(x, A.Name):
                found += [n for n in carry.get(x.name, ()) if n not in found]
            elif isinstance(x, (A.Binary, A.Unary)):
                most = int_range(getattr(x, "ty", None))
                value = self.value(x, env) if most is not None else None
                if value is not None and not value.is_const:
                    here = here or facts.child()
                    found.append(Need(value, most, x.ty.name, here))
                elif value is not None and not most[0] <= value.value <= most[1]:  # `K + K`, i8 K = 100
                    found.append(WRAPS)
            stack += A.children(x)
        return found

    def fits(self, need, param_lo: dict) -> list:
        """What keeps `need` in its type, with the parameter minimums `param_lo` (known where
        the value is used, so in the whole call): limits, or WRAPS where none can."""
        if need == WRAPS:
            return [WRAPS]
        key = (id(need), tuple(sorted(param_lo.items())))
        if key not in self.judged:
            self.tick()
            self.judged[key] = self._fits(need, param_lo)
        return self.judged[key]

    def _fits(self, need: Need, param_lo: dict) -> list:
        facts = need.facts.knowing(param_lo)
        values = self.expand(need.value, facts)
        if values is None:
            return [WRAPS]
        found: list = []
        least, most = need.most
        exact = least <= -(1 << 63)  # i64 arithmetic is taken as exact
        for value in values:
            top = facts.upper(value)
            if top is None:
                if not exact:
                    return [WRAPS]
            elif not top.is_const:
                found.append(IndexLimit(top, most, need.type))
            elif top.value > most:
                return [WRAPS]
            if self.stays_above(value, least, facts):
                continue
            low = facts.lower(value)
            if low is None or low.is_const:
                return [WRAPS]
            found.append(IndexLimit(low, least, need.type, below=True))
        return found

    def expand(self, value: Poly, facts) -> list[Poly] | None:
        """`value` with each loop's exit atom in it as the counter's value before the loop or as a
        value up to one of its steps' tops (new atoms in `facts`); None past _COMBINATIONS or
        where a step has no top."""
        values = [value]
        while True:
            exits = sorted({n for v in values for n in v.names() if n in self.exits})
            if not exits:
                return values
            name = exits[0]
            before, tops = self.exits[name]
            if None in tops or len(values) * (1 + len(tops)) > _COMBINATIONS:
                return None
            ends = [before] + [Poly.name(facts.fresh(lo=[before], hi=[top])) for top in tops]
            values = [v.substitute(name, end) if name in v.names() else v for v in values for end in ends]

    # ---- variables ----
    def carry(self, env: dict, name: str, needs) -> None:
        env[CARRY] = {**env.get(CARRY, {}), name: tuple(needs)}

    def stepped(self, name: str, needs: list, value, facts) -> None:
        """`name` was assigned `value` needing `needs`: a counter's step, for each loop it counts."""
        for frame in self.heads:
            if name in frame:
                head = frame[name]
                self.needs.setdefault(head, []).extend(needs)
                self.tops.setdefault(head, []).append(facts.upper(value) if isinstance(value, Poly) else None)

    def merged(self, atom: str, states, carries) -> None:
        """`atom` is one of `states` (an `if`'s branches'), which carried `carries`."""
        self.needs.setdefault(atom, []).extend(x for c in carries for x in c)
        self.links.setdefault(atom, set()).update(n for s in states for n in s.names() if n.startswith("\0"))

    def exited(self, atom: str, head: str, before: Poly) -> None:
        """`atom` is a counter after its loop: its value `before` it, or one its steps made."""
        self.links.setdefault(atom, set()).add(head)
        self.exits[atom] = (before, list(self.tops.get(head, [])))

    # ---- guards ----
    def trusted(self, sides, env: dict, facts) -> list | None:
        """What a comparison of `sides` needs to be taken as it reads, or None if it may wrap."""
        found = [x for side in sides for x in self.arithmetic(side, env, facts)]
        return None if any(WRAPS in self.fits(need, {}) for need in found) else found

    def loop_condition(self, sides, region: list, counters: dict[str, str], before: dict, head: dict,
                       facts) -> None:
        """Fill `region` with what the loop condition's `sides` need, the body walked: in the
        environment at the `head` of an iteration, with each counter at its value `before` the
        loop or at one of its steps' upper bounds."""
        choices = []
        for name, atom in counters.items():
            start = before[name]
            tops = self.tops.get(atom, [])
            if None in tops:
                region.append(WRAPS)
                return
            choices.append([(name, start, None)] + [(name, start, top) for top in tops])
        if prod(len(c) for c in choices) > _COMBINATIONS:
            region.append(WRAPS)
            return
        for combination in product(*choices):
            check, env = facts.child(), dict(head)
            for name, start, top in combination:
                env[name] = start if top is None else Poly.name(check.fresh(lo=[start], hi=[top]))
            region.extend(x for side in sides for x in self.arithmetic(side, env, check))

    # ---- accesses ----
    def note_access(self, ref, index: A.Expr, at: Poly, env: dict, facts) -> None:
        self.pending.append((ref, self.arithmetic(index, env, facts), tuple(self.regions),
                             self.atoms_of(at, facts), dict(facts.param_lo)))

    def atoms_of(self, p: Poly, facts) -> frozenset[str]:
        """The atoms `p`'s bounds come from: its own, those they narrow, bound by or came from."""
        seen: set[str] = set()
        stack = [n for n in p.names() if n.startswith("\0")]
        while stack:
            name = stack.pop()
            if name in seen:
                continue
            seen.add(name)
            atom = facts.atoms.get(name)
            if atom is not None:
                stack += [atom.origin] if atom.origin else []
                stack += [n for b in atom.lo + atom.hi for n in b.names() if n.startswith("\0")]
            stack += self.links.get(name, ())
        return frozenset(seen)

    def resolve(self) -> dict[str, list[IndexLimit]]:
        """Each access's needs, now that every step is known: limits per pointer; a pointer one of
        whose accesses may wrap is unchecked."""
        limits: dict[str, list[IndexLimit]] = {}
        for ref, own, regions, atoms, param_lo in self.pending:
            if ref.param in self.unchecked:
                continue
            # A guard's needs are judged with what was known before it: the minimums it taught
            # hold only if its arithmetic did not wrap. The rest, with what is known where the
            # value is used (given the guards there, so in the whole call).
            every = [(x, param_lo) for x in own] + [(x, param_lo) for a in atoms for x in self.needs.get(a, ())]
            every += [(x, {}) for r in regions for x in r]
            found = [x for need, known in every for x in self.fits(need, known)]
            if WRAPS in found:
                self.fail(ref, WRAPS)
            else:
                limits.setdefault(ref.param, []).extend(found)
        return limits

