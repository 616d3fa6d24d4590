/* move every particle by its velocity times dt */
struct Particle { float x, y, vx, vy; };

void step(struct Particle *ps, int n, float dt) {
    for (int i = 0; i < n; i++) {
        ps[i].x += ps[i].vx * dt;
        ps[i].y += ps[i].vy * dt;
    }
}
