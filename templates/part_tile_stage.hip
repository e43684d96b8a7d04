{{! gemm.hip's epilogues: fragment row i of the units in row g of the tile, acc[i][j][r], into the LDS stage, rows SB floats apart (stage and SB from the includer), between barriers (every wave is done with the LDS before: the ring or the stage) }}__syncthreads();
      if (unit / {{WN}} == g) {
#pragma unroll
        for (int j = 0; j < {{FN}}; j++)
#pragma unroll
          for (int r = 0; r < F::ACC; r++)
            stage[F::row(r) * SB + wn + j * F::N + F::col(r)] = acc[i][j][r];
      }
      __syncthreads();
