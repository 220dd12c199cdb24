// A counter behind a guard, and a counter step that never runs. c starts
// at 0; input A (x==1) steps it by +2, and input D steps it by +1 but only
// when x == 9, which no rule ever sets; so c stays even. Both steps are
// guarded against overflow as in RERS 2017/2019, so c has about 2^30
// reachable values and no exhaustive search ends. The syntactic
// congruence sees the +1 and knows nothing; the abstraction shows that
// step never runs, so c is even after all and c == 7 never holds.
// Hand-worked answers:
//   start x=1, c=0, y=1.
//   A (x==1): c += 2.   B (x==1 && c==20): x=2.   C (x==1): y=(y*7+3)%101.
//   D (x==9): c += 1.   E (x==1 && c==7): x=3.    Anything else: invalid.
//   error_0: x==3   -> needs c==7, c is even: unreachable.
//   error_1: x==2   -> ten A (c = 20) then B: reachable, shortest witness
//                      A A A A A A A A A A B (11 inputs). The abstraction
//                      joins every value of c, so its path is B alone: that
//                      candidate fails and the counter must be pumped.
//   error_2: y>100  -> y stays in [0, 100]: unreachable.
#include <stdio.h>
#include <assert.h>
#include <math.h>
#include <stdlib.h>

    extern void __VERIFIER_error(int);

	int inputs[] = {1,2,3,4,5};

	void errorCheck();
	void calculate_output(int);

	int cf = 1;
	int x = 1;
	int c = 0;
	int y = 1;

	void errorCheck() {
	    if((x == 3)){
	    cf = 0;
	    __VERIFIER_error(0);
	    }
	    if((x == 2)){
	    cf = 0;
	    __VERIFIER_error(1);
	    }
	    if((y > 100)){
	    cf = 0;
	    __VERIFIER_error(2);
	    }
	}

 void calculate_output(int input) {
        cf = 1;
    if((cf==1 && (input == 1)) && x == 1) {
    	cf = 0;
    	c += (c + 20) > c ? 2 : 0;
    	printf("%d\n", 21); fflush(stdout);
    }
    if((cf==1 && (input == 2)) && x == 1 && c == 20) {
    	cf = 0;
    	x = 2;
    	printf("%d\n", 22); fflush(stdout);
    }
    if((cf==1 && (input == 3)) && x == 1) {
    	cf = 0;
    	y = ((y * 7) + 3) % 101;
    	printf("%d\n", 23); fflush(stdout);
    }
    if((cf==1 && (input == 4)) && x == 9) {
    	cf = 0;
    	c += (c + 20) > c ? 1 : 0;
    	printf("%d\n", 24); fflush(stdout);
    }
    if((cf==1 && (input == 5)) && x == 1 && c == 7) {
    	cf = 0;
    	x = 3;
    	printf("%d\n", 25); fflush(stdout);
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
        if((input != 1) && (input != 2) && (input != 3) && (input != 4) && (input != 5))
          return -2;
        calculate_output(input);
    }
}
