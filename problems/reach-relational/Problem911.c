// Two counters that move together. Hand-worked answers:
//   start x=0, y=0.  A: x+1, y+1.  B: x+3, y+3.  C (x > 5): x-2, y-2.
//   Every step adds the same amount to both (modulo 2^32 alike), so
//   x == y in every state.
//   error_0: x != y        -> unreachable (the invariant x == y).
//   error_1: x == 4        -> reachable, shortest witness B A (or A B).
//   error_2: x - y == 7    -> unreachable (x - y is always 0).
//   The interval abstraction cannot show 0 or 2: x and y each grow
//   without bound, and intervals do not relate them. The states are as
//   many as the ints, so no exploration ends: only an invariant relating
//   x and y settles labels 0 and 2.
#include <stdio.h>
#include <assert.h>
#include <math.h>
#include <stdlib.h>

    extern void __VERIFIER_error(int);

	int inputs[] = {1,2,3};

	void errorCheck();
	void calculate_output(int);

	int cf = 1;
	int x = 0;
	int y = 0;

	void errorCheck() {
	    if((x != y)){
	    cf = 0;
	    __VERIFIER_error(0);
	    }
	    if((x == 4)){
	    cf = 0;
	    __VERIFIER_error(1);
	    }
	    if((x - y == 7)){
	    cf = 0;
	    __VERIFIER_error(2);
	    }
	}

 void calculate_output(int input) {
        cf = 1;
    if((cf==1 && (input == 1))) {
    	cf = 0;
    	x = x + 1;
    	y = y + 1;
    	printf("%d\n", 21); fflush(stdout);
    }
    if((cf==1 && (input == 2))) {
    	cf = 0;
    	x = x + 3;
    	y = y + 3;
    	printf("%d\n", 22); fflush(stdout);
    }
    if((cf==1 && (input == 3)) && x > 5) {
    	cf = 0;
    	x = x - 2;
    	y = y - 2;
    	printf("%d\n", 23); fflush(stdout);
    }
    errorCheck();

    if( cf==1 )
    	fprintf(stderr, "Invalid input: %d\n", input);
}

int main()
{
    while(1)
    {
        int input;
        scanf("%d", &input);
        if((input != 1) && (input != 2) && (input != 3))
          return -2;
        calculate_output(input);
    }
}
