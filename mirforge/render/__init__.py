"""Views of scenes: the scene is the model, every image is a view of it."""

BACKENDS = ("moderngl", "pyrender")  # of 3D views (mirforge.render.gl): fast, and the reference
DEFAULT_BACKEND = "moderngl"
