"""Places every non-constant tensor of a method in one arena (memory id 1).

Lifetimes are instruction intervals [first write, last read]; method inputs
start before instruction 0 and method outputs live past the end. Tensors are
placed largest first at the lowest offset (aligned as upstream, 16 bytes) that
does not overlap any already placed tensor whose lifetime intersects, so
tensors that are never alive together share memory.
"""

ALIGNMENT = 16


def align(value, alignment=ALIGNMENT):
    return (value + alignment - 1) // alignment * alignment


class Allocation:
    def __init__(self, key, size, first, last):
        self.key = key
        self.size = size
        self.first = first
        self.last = last
        self.offset = None

    def lives_with(self, other):
        return self.first <= other.last and other.first <= self.last

    def overlaps_in_memory(self, other):
        return (self.offset < other.offset + max(other.size, 1)
                and other.offset < self.offset + max(self.size, 1))


def plan(allocations):
    """Assigns .offset to every allocation; returns the arena size."""
    placed = []
    for item in sorted(allocations, key=lambda a: (-a.size, a.first, str(a.key))):
        live = sorted((p for p in placed if p.lives_with(item)), key=lambda p: p.offset)
        offset = 0
        for other in live:
            if offset + max(item.size, 1) <= other.offset:
                break
            offset = max(offset, align(other.offset + max(other.size, 1)))
        item.offset = offset
        placed.append(item)
    return max((align(a.offset + max(a.size, 1)) for a in placed), default=0)


def check(allocations):
    """Raises if two tensors alive at the same time share bytes."""
    for i, a in enumerate(allocations):
        if a.offset % ALIGNMENT:
            raise AssertionError("%s at unaligned offset %d" % (a.key, a.offset))
        for b in allocations[i + 1:]:
            if a.lives_with(b) and a.overlaps_in_memory(b):
                raise AssertionError("%s and %s overlap while both alive" % (a.key, b.key))
