"""Render one scene job with Blender Cycles (run with the ``bpy`` venv, not the project's).

    /work/bpyenv/bin/python tools/fixturegen/blender_render.py JOB.json OUT.png

The job (written by :mod:`tools.fixturegen.blender_job`) holds the same geometry the labels
come from: table-frame poses (mm; x right, y down, z into the table), the camera's intrinsics
and pose, the cloth image, texture atlases and the light. Blender's frame is z-up, so points
map as (x, y, z) -> (x, -y, -z) / 1000 (metres).
"""

from __future__ import annotations

import json
import math
import sys

import bpy  # noqa: I001 - bpy must come first: it makes bmesh and mathutils importable
import bmesh
import numpy as np
from mathutils import Matrix

B = np.diag([1.0, -1.0, -1.0])
MM = 0.001


def _world_matrix(rot: list[list[float]], pos: list[float]) -> Matrix:
    r = B @ np.array(rot)
    t = B @ np.array(pos) * MM
    m = np.eye(4)
    m[:3, :3] = r
    m[:3, 3] = t
    return Matrix(m.tolist())


def _image(path: str) -> bpy.types.Image:
    img = bpy.data.images.load(path, check_existing=True)
    return img


def _material(name: str, colour_img: str | None, base: list[float] | None, metallic: float, rough: float,
              bump_img: str | None = None, bump: float = 0.0, coat: float = 0.0) -> bpy.types.Material:
    mat = bpy.data.materials.new(name)
    mat.use_nodes = True
    nt = mat.node_tree
    bsdf = nt.nodes["Principled BSDF"]
    bsdf.inputs["Metallic"].default_value = metallic
    bsdf.inputs["Roughness"].default_value = rough
    if coat:
        bsdf.inputs["Coat Weight"].default_value = coat
    uv = nt.nodes.new("ShaderNodeTexCoord")
    if colour_img:
        tex = nt.nodes.new("ShaderNodeTexImage")
        tex.image = _image(colour_img)
        tex.interpolation = "Cubic"
        nt.links.new(uv.outputs["UV"], tex.inputs["Vector"])
        nt.links.new(tex.outputs["Color"], bsdf.inputs["Base Color"])
    elif base:
        bsdf.inputs["Base Color"].default_value = (*base, 1.0)
    if bump_img:
        htex = nt.nodes.new("ShaderNodeTexImage")
        htex.image = _image(bump_img)
        htex.image.colorspace_settings.name = "Non-Color"
        nt.links.new(uv.outputs["UV"], htex.inputs["Vector"])
        bnode = nt.nodes.new("ShaderNodeBump")
        bnode.inputs["Strength"].default_value = bump
        bnode.inputs["Distance"].default_value = 0.0004
        nt.links.new(htex.outputs["Color"], bnode.inputs["Height"])
        nt.links.new(bnode.outputs["Normal"], bsdf.inputs["Normal"])
    return mat


def _mesh_object(name: str, verts: list[tuple[float, float, float]], faces: list[tuple[list[int], list[tuple[float, float]]]],
                 mat: bpy.types.Material, smooth_sides: bool = False) -> bpy.types.Object:
    mesh = bpy.data.meshes.new(name)
    bm = bmesh.new()
    bv = [bm.verts.new(v) for v in verts]
    uv_layer = bm.loops.layers.uv.new("UVMap")
    for idx, uvs in faces:
        f = bm.faces.new([bv[i] for i in idx])
        for loop, uvc in zip(f.loops, uvs):
            loop[uv_layer].uv = uvc
    bm.normal_update()
    bm.to_mesh(mesh)
    bm.free()
    obj = bpy.data.objects.new(name, mesh)
    obj.data.materials.append(mat)
    bpy.context.collection.objects.link(obj)
    return obj


def add_coin(t: dict, idx: int) -> None:
    r = t["size"] / 2 * MM
    h = t["thickness"] / 2 * MM
    n = 64
    verts = []
    for k in range(n):
        a = 2 * math.pi * k / n
        verts.append((r * math.cos(a), r * math.sin(a), h))
    for k in range(n):
        a = 2 * math.pi * k / n
        verts.append((r * math.cos(a), r * math.sin(a), -h))
    faces = []
    # atlas: heads in [0, .5] x [0, 1], tails in [.5, 1] x [0, 1]; the rim samples a flat strip.
    top = list(range(n))
    faces.append((top, [(0.25 + 0.25 * math.cos(2 * math.pi * k / n), 0.5 + 0.5 * math.sin(2 * math.pi * k / n)) for k in range(n)]))
    bot = list(range(2 * n - 1, n - 1, -1))
    faces.append((bot, [(0.75 + 0.25 * math.cos(2 * math.pi * (k - n) / n), 0.5 - 0.5 * math.sin(2 * math.pi * (k - n) / n)) for k in bot]))
    for k in range(n):
        j = (k + 1) % n
        faces.append(([k, n + k, n + j, j], [(0.5, 0.02)] * 4))
    mat = _material(f"coin{idx}", None, t["metal_rgb"], 1.0, t.get("roughness", 0.32), t["height_atlas"], 0.6)
    obj = _mesh_object(f"coin{idx}", verts, faces, mat)
    for p in obj.data.polygons[2:]:
        p.use_smooth = True
    obj.matrix_world = _world_matrix(t["rot"], t["pos"])


D6_UV = {(1, 0, 0): (0, 1, 0), (-1, 0, 0): (0, -1, 0), (0, 1, 0): (-1, 0, 0),
         (0, -1, 0): (1, 0, 0), (0, 0, 1): (1, 0, 0), (0, 0, -1): (-1, 0, 0)}


def add_d6(t: dict, idx: int) -> None:
    s = t["size"] / 2 * MM
    verts: list[tuple[float, float, float]] = []
    faces = []
    for slot, (value, n) in enumerate(t["faces"]):
        n = np.array(n, float)
        u = np.array(D6_UV[tuple(int(x) for x in n)], float)
        v = np.cross(u, n)  # texture down
        c = n * s
        quad = [c - s * u - s * v, c + s * u - s * v, c + s * u + s * v, c - s * u + s * v]
        col, row = slot % 3, slot // 3
        # atlas 3x2 tiles; image v down -> Blender v up
        uvs = [((col + a) / 3, 1 - (row + b) / 2) for a, b in ((0, 0), (1, 0), (1, 1), (0, 1))]
        base = len(verts)
        verts.extend(tuple(p) for p in quad)
        # winding: outward normal = -(u x v) = n needs order u, then v... check with cross
        order = [0, 1, 2, 3]
        e1, e2 = quad[1] - quad[0], quad[3] - quad[0]
        if np.dot(np.cross(e1, e2), n) < 0:
            order = [0, 3, 2, 1]
        faces.append(([base + i for i in order], [uvs[i] for i in order]))
    mat = _material(f"d6m{idx}", t["atlas"], None, 0.0, 0.35, None, 0.0, coat=0.4)
    obj = _mesh_object(f"d6_{idx}", verts, faces, mat)
    # weld the duplicated corners so the bevel rounds the edges
    bm = bmesh.new()
    bm.from_mesh(obj.data)
    bmesh.ops.remove_doubles(bm, verts=bm.verts, dist=1e-6)
    bm.to_mesh(obj.data)
    bm.free()
    mod = obj.modifiers.new("bevel", "BEVEL")
    mod.width = t["size"] * MM * 0.1
    mod.segments = 3
    mod.limit_method = "NONE"
    obj.matrix_world = _world_matrix(t["rot"], t["pos"])


def add_d8(t: dict, idx: int) -> None:
    a = t["size"] / math.sqrt(2) * MM
    verts: list[tuple[float, float, float]] = []
    faces = []
    for slot, (value, n) in enumerate(t["faces"]):
        sx, sy, sz = np.sign(n)
        tri = [np.array([sx * a, 0, 0]), np.array([0, sy * a, 0]), np.array([0, 0, sz * a])]
        if np.dot(np.cross(tri[1] - tri[0], tri[2] - tri[0]), np.array(n)) < 0:
            tri = [tri[0], tri[2], tri[1]]
        col, row = slot % 4, slot // 4
        uvs = [((col + 0.5) / 4, 1 - row / 2), (col / 4, 1 - (row + 0.866) / 2), ((col + 1) / 4, 1 - (row + 0.866) / 2)]
        base = len(verts)
        verts.extend(tuple(p) for p in tri)
        faces.append(([base, base + 1, base + 2], uvs))
    mat = _material(f"d8m{idx}", t["atlas"], None, 0.0, 0.3, None, 0.0, coat=0.5)
    obj = _mesh_object(f"d8_{idx}", verts, faces, mat)
    bm = bmesh.new()
    bm.from_mesh(obj.data)
    bmesh.ops.remove_doubles(bm, verts=bm.verts, dist=1e-6)
    bm.to_mesh(obj.data)
    bm.free()
    mod = obj.modifiers.new("bevel", "BEVEL")
    mod.width = t["size"] * MM * 0.05
    mod.segments = 2
    obj.matrix_world = _world_matrix(t["rot"], t["pos"])


def _room_light(world: bpy.types.World, tint: list[float], strength: float) -> None:
    """A room's light: bright overhead (a ceiling, a lamp's shade), dim towards the walls.

    Metal mirrors its surroundings, so under a uniform sky a coin's relief shows nothing;
    real rooms are brighter above. The strength goes as 0.2 + 1.6 z^2 with z the direction's
    height, whose cosine-weighted mean over the sky is 1: the cloth is lit as before.
    """
    nt = world.node_tree
    background = nt.nodes["Background"]
    background.inputs["Color"].default_value = (*tint, 1.0)
    coords = nt.nodes.new("ShaderNodeTexCoord")
    xyz = nt.nodes.new("ShaderNodeSeparateXYZ")
    nt.links.new(coords.outputs["Generated"], xyz.inputs["Vector"])
    square = nt.nodes.new("ShaderNodeMath")
    square.operation = "MULTIPLY"
    nt.links.new(xyz.outputs["Z"], square.inputs[0])
    nt.links.new(xyz.outputs["Z"], square.inputs[1])
    scaled = nt.nodes.new("ShaderNodeMath")
    scaled.operation = "MULTIPLY_ADD"
    nt.links.new(square.outputs["Value"], scaled.inputs[0])
    scaled.inputs[1].default_value = 1.6 * strength
    scaled.inputs[2].default_value = 0.2 * strength
    nt.links.new(scaled.outputs["Value"], background.inputs["Strength"])


def main() -> None:
    job_path, out_path = sys.argv[-2], sys.argv[-1]
    with open(job_path) as fh:
        job = json.load(fh)
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.render.engine = "CYCLES"
    scene.cycles.device = "CPU"
    scene.cycles.samples = int(job.get("samples", 24))
    scene.cycles.use_denoising = True
    scene.cycles.denoiser = "OPENIMAGEDENOISE"
    scene.cycles.max_bounces = 4
    scene.render.threads_mode = "FIXED"
    scene.render.threads = int(job.get("threads", 2))
    w, h = job["camera"]["size"]
    scene.render.resolution_x, scene.render.resolution_y = w, h
    scene.render.resolution_percentage = 100
    scene.view_settings.view_transform = "Standard"
    scene.render.image_settings.file_format = "PNG"

    # Cloth plane (the same picture the procedural renderer uses).
    x0, y0, x1, y1 = job["plane_extent_mm"]
    verts = [(x0, y0, 0.0), (x1, y0, 0.0), (x1, y1, 0.0), (x0, y1, 0.0)]
    verts_b = [tuple((B @ np.array(v)) * MM) for v in verts]
    uvs = [(0, 1), (1, 1), (1, 0), (0, 0)]
    cloth = _material("cloth", job["plane_image"], None, 0.0, 0.95)
    plane = _mesh_object("cloth", verts_b, [([0, 3, 2, 1], [uvs[0], uvs[3], uvs[2], uvs[1]])], cloth)
    plane.data.polygons[0].use_smooth = False

    for i, t in enumerate(job["things"]):
        {"coin": add_coin, "d6": add_d6, "d8": add_d8}[t["shape"]](t, i)
    if job.get("hand"):
        skin = _material("skin", None, job["hand"]["skin_rgb"], 0.0, 0.55)
        for k, (centre, radii, yaw) in enumerate(job["hand"]["parts"]):
            bpy.ops.mesh.primitive_uv_sphere_add(segments=32, ring_count=16, radius=1.0)
            obj = bpy.context.active_object
            obj.data.materials.append(skin)
            for p in obj.data.polygons:
                p.use_smooth = True
            c, sn = math.cos(math.radians(yaw)), math.sin(math.radians(yaw))
            rz = np.array([[c, -sn, 0], [sn, c, 0], [0, 0, 1]]) @ np.diag(radii)
            m = np.eye(4)
            m[:3, :3] = B @ rz * MM
            m[:3, 3] = B @ np.array(centre) * MM
            obj.matrix_world = Matrix(m.tolist())

    lt = job["lighting"]
    d = np.array(lt["direction"], float)
    d = B @ (d / np.linalg.norm(d))  # towards the light, Blender frame
    sun = bpy.data.lights.new("sun", "SUN")
    sun.energy = 3.2 * lt["key"]
    sun.angle = math.radians(1.0 + 25.0 * lt["softness"])
    sun.color = tuple(float(c) for c in lt["tint_rgb"])
    sun_obj = bpy.data.objects.new("sun", sun)
    bpy.context.collection.objects.link(sun_obj)
    # A sun shines along its local -z: point local +z at the light.
    z = d
    xax = np.cross([0, 0, 1.0], z) if abs(z[2]) < 0.99 else np.array([1.0, 0, 0])
    xax /= np.linalg.norm(xax)
    yax = np.cross(z, xax)
    m = np.eye(4)
    m[:3, 0], m[:3, 1], m[:3, 2] = xax, yax, z
    sun_obj.matrix_world = Matrix(m.tolist())
    world = bpy.data.worlds.new("world")
    scene.world = world
    world.use_nodes = True
    _room_light(world, lt["tint_rgb"], 1.1 * lt["ambient"])

    cam_data = bpy.data.cameras.new("cam")
    cam_data.sensor_fit = "HORIZONTAL"
    cam_data.sensor_width = 36.0
    k = job["camera"]["K"]
    cam_data.lens = k[0][0] * 36.0 / w
    cam_data.shift_x = -(k[0][2] - w / 2) / w
    cam_data.shift_y = (k[1][2] - h / 2) / w
    cam_data.clip_start = 0.01
    cam_obj = bpy.data.objects.new("cam", cam_data)
    bpy.context.collection.objects.link(cam_obj)
    rot_cw = np.array(job["camera"]["R"]).T  # camera -> world (table frame, OpenCV axes)
    m = np.eye(4)
    m[:3, :3] = B @ rot_cw @ np.diag([1.0, -1.0, -1.0])
    m[:3, 3] = B @ np.array(job["camera"]["centre_mm"]) * MM
    cam_obj.matrix_world = Matrix(m.tolist())
    scene.camera = cam_obj
    scene.render.filepath = out_path
    bpy.ops.render.render(write_still=True)


if __name__ == "__main__":
    main()
