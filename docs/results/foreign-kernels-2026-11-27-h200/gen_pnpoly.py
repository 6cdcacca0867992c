"""The polygon of kt_pnpoly_cmem.toml: 600 vertices on a jittered circle (a star-shaped polygon) and each
edge's slope as the kernel computes it in float32, for Kernel Tuner's pnpoly (cmem_args d_vertices, d_slopes)."""
import array, math, random, struct, sys
sys.path.insert(0, '/tmp/fk/tools'); import npy
f32 = lambda x: struct.unpack('f', struct.pack('f', x))[0]
random.seed(5)
V = 600
xs, ys = [], []
for j in range(V):
    a = 2 * math.pi * j / V
    r = 1.0 + 0.3 * random.random()
    xs.append(f32(r * math.cos(a))); ys.append(f32(r * math.sin(a)))
verts = array.array('f')
for x, y in zip(xs, ys):
    verts.extend([x, y])
slopes = array.array('f')
for j in range(V):
    k = j - 1 if j > 0 else V - 1
    slopes.append(f32(f32(xs[k] - xs[j]) / f32(ys[k] - ys[j])))
npy.save('/tmp/fk/data/pnpoly_vertices.npy', verts)
npy.save('/tmp/fk/data/pnpoly_slopes.npy', slopes)
